package org.ctorch.jni;

import java.io.File;
import java.net.URISyntaxException;
import java.security.CodeSource;

/**
 * Loads {@code libctorch_jni.so} once: from the directory of the jar holding this class (the
 * layout CMake builds and Maven users keep), else from {@code java.library.path}. Internal: the
 * SWIG classes of this package call it; {@code org.ctorch} is the API.
 */
public final class NativeLibrary {
  private static boolean loaded;

  private NativeLibrary() {}

  /** Loads the JNI library; later calls do nothing. */
  public static synchronized void load() {
    if (loaded) {
      return;
    }
    String name = System.mapLibraryName("ctorch_jni");
    File beside = besideJar(name);
    if (beside != null && beside.isFile()) {
      System.load(beside.getAbsolutePath());
    } else {
      System.loadLibrary("ctorch_jni");
    }
    loaded = true;
  }

  private static File besideJar(String name) {
    try {
      CodeSource source = NativeLibrary.class.getProtectionDomain().getCodeSource();
      if (source == null || source.getLocation() == null) {
        return null;
      }
      File location = new File(source.getLocation().toURI());
      File dir = location.isDirectory() ? location : location.getParentFile();
      return dir == null ? null : new File(dir, name);
    } catch (URISyntaxException | SecurityException e) {
      return null;
    }
  }
}
