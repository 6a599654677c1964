package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The docs import whole packages ({@code import org.ctorch.*; import org.ctorch.nn.*;}). A public
 * type named like one of java.lang's (java.lang.Module, Record, Process...) would then be
 * ambiguous in every program that names it, so none may exist.
 */
class WildcardImportsTest {
  private static final List<String> PACKAGES = List.of("org/ctorch/", "org/ctorch/nn/", "org/ctorch/optim/");

  @Test
  void noPublicTypeSharesANameWithJavaLang() throws Exception {
    List<String> clashes = new ArrayList<>();
    int checked = 0;
    try (JarFile jar = new JarFile(jarOf(Tensor.class).toFile())) {
      for (JarEntry e : Collections.list(jar.entries())) {
        String name = e.getName();
        int slash = name.lastIndexOf('/') + 1;
        if (!name.endsWith(".class") || name.contains("$") || !PACKAGES.contains(name.substring(0, slash))) {
          continue;
        }
        Class<?> c = Class.forName(name.substring(0, name.length() - 6).replace('/', '.'));
        if (!java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
          continue;
        }
        checked++;
        try {
          Class.forName("java.lang." + c.getSimpleName());
          clashes.add(c.getName());
        } catch (ClassNotFoundException expected) {
          // no java.lang type of that name
        }
      }
    }
    assertTrue(checked > 50, "only " + checked + " public types found in ctorch.jar");
    assertEquals(List.of(), clashes, "these clash with java.lang under wildcard imports: rename them");
  }

  private static Path jarOf(Class<?> c) throws URISyntaxException {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
