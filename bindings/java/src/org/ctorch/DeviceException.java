package org.ctorch;

/** {@link Status#DEVICE}: wrong or mixed devices, or a device with no backend. */
public class DeviceException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public DeviceException(String message) {
    super(Status.DEVICE, message);
  }
}
