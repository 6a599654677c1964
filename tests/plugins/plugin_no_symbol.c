/* plugin_no_symbol.c - a shared object without ct_plugin_init. */
int testplug_not_an_entry_point(void) { return 1; }
