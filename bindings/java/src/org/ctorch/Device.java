package org.ctorch;

import java.util.Objects;
import org.ctorch.jni.CTorchNative;

/**
 * A device: a {@link Type} and an index ({@code cuda:1}). Devices print and parse as the library
 * names them: "cpu", "meta", "cuda:0", and the names plugin backends register ("counting:1").
 */
public final class Device {
  /** Device types ({@code ct_device_type}). */
  public enum Type {
    /** The host. */
    CPU,
    /** An NVIDIA GPU. */
    CUDA,
    /** Shapes and dtypes only, no data. */
    META,
    /** The first plugin backend registered. */
    PLUGIN1,
    /** The second plugin backend. */
    PLUGIN2,
    /** The third plugin backend. */
    PLUGIN3,
    /** The fourth plugin backend. */
    PLUGIN4;

    /**
     * The name the library gives the type ("cpu", "cuda", "meta", a plugin's name).
     *
     * @return the name, or null for a plugin type no backend registered
     */
    public String libraryName() {
      return CTorchNative.ct_device_type_name(ordinal());
    }
  }

  /** The host. */
  public static final Device CPU = new Device(Type.CPU, 0);
  /** The meta device: tensors with sizes and dtypes but no data. */
  public static final Device META = new Device(Type.META, 0);

  private final Type type;
  private final int index;

  private Device(Type type, int index) {
    this.type = type;
    this.index = type == Type.CPU || type == Type.META ? 0 : index; // the library may say -1 for "the only one"
  }

  /**
   * A CUDA device.
   *
   * @param index the device number
   * @return {@code cuda:index}
   */
  public static Device cuda(int index) {
    return new Device(Type.CUDA, index);
  }

  /**
   * A device of a type.
   *
   * @param type the type
   * @param index its index (0 for cpu and meta)
   * @return the device
   */
  public static Device of(Type type, int index) {
    return new Device(Objects.requireNonNull(type, "type"), index);
  }

  /**
   * Parses "cpu", "meta", "cuda", "cuda:1" or a plugin's name ("counting:1").
   *
   * @param name the device's name
   * @return the device
   * @throws DeviceException for a name no backend registered
   */
  public static Device parse(String name) {
    if (name == null) {
      throw new InvalidArgumentException("Device.parse: the name is null");
    }
    int colon = name.indexOf(':');
    String base = colon < 0 ? name : name.substring(0, colon);
    int index = 0;
    if (colon >= 0) {
      try {
        index = Integer.parseInt(name.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new DeviceException("Device.parse: '" + name + "' has no device index after ':'. Write e.g. cuda:0");
      }
    }
    for (Type t : Type.values()) {
      if (base.equals(t.libraryName())) {
        return new Device(t, index);
      }
    }
    throw new DeviceException("Device.parse: unknown device '" + name + "'. Use cpu, meta, cuda:N or a registered plugin's name");
  }

  /**
   * The type.
   *
   * @return the device type
   */
  public Type type() {
    return type;
  }

  /**
   * The index.
   *
   * @return the device number (0 for cpu and meta)
   */
  public int index() {
    return index;
  }

  /**
   * "cpu", "meta", "cuda:0", "counting:1".
   *
   * @return "cpu", "meta", "cuda:0", "counting:1"
   */
  @Override
  public String toString() {
    String name = type.libraryName();
    if (name == null) {
      name = type.name().toLowerCase(java.util.Locale.ROOT);
    }
    return type == Type.CPU || type == Type.META ? name : name + ":" + index;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Device && ((Device) o).type == type && ((Device) o).index == index;
  }

  @Override
  public int hashCode() {
    return type.hashCode() * 31 + index;
  }
}
