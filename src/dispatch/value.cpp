#include "dispatch/value.h"

namespace ct {

void Value::symbolic_list() const {
  fail(CT_ERROR_GUARD, ct::str("an int list argument holds symbolic values ", sym_int_list(),
                           " where this operator needs concrete ones: it does not support symbolic shapes "
                           "yet. Pass concrete sizes, or mark these dims static"));
}

}  // namespace ct
