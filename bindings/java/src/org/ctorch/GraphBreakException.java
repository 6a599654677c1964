package org.ctorch;

/** {@link Status#GRAPH_BREAK}: a graph break under fullgraph compilation. */
public class GraphBreakException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public GraphBreakException(String message) {
    super(Status.GRAPH_BREAK, message);
  }
}
