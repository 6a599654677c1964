package org.ctorch;

/** The kinds of failure of the C ABI ({@code ct_status}), with their fixed codes. */
public enum Status {
  /** Success. */
  OK(0),
  /** A NULL or released handle, a bad option value, an unknown name. */
  INVALID_ARGUMENT(1),
  /** Sizes do not fit the operator (broadcast, inner sizes, view). */
  SHAPE(2),
  /** A dtype the operator does not accept, or an unsafe cast. */
  DTYPE(3),
  /** Wrong or mixed devices, or a device with no backend. */
  DEVICE(4),
  /** An allocation failed. */
  OUT_OF_MEMORY(5),
  /** No kernel for this device and dtype, or a missing feature. */
  NOT_IMPLEMENTED(6),
  /** A dimension or index out of range. */
  INDEX(7),
  /** A nondeterministic kernel while deterministic mode is on. */
  NONDETERMINISTIC(8),
  /** A symbolic value had to be concrete and could not be, or a guard failed. */
  GUARD(9),
  /** A graph break under fullgraph compilation. */
  GRAPH_BREAK(10),
  /** A compiled function hit its recompile limit. */
  RECOMPILE_LIMIT(11),
  /** Reading or writing a file failed. */
  IO(12),
  /** A malformed file or string. */
  FORMAT(13),
  /** A device backend or plugin failed. */
  BACKEND(14),
  /** A library older than the header, or an unsupported format version. */
  VERSION(15),
  /** A bug in ctorch; also any status this binding does not know. */
  INTERNAL(16),
  /** A matrix a linear-algebra function cannot factor or invert (singular, not positive-definite). */
  LINALG(17),
  /** A distributed operation or rendezvous did not finish within its timeout (the message names
   * the ranks that did not arrive where they can be known). */
  TIMEOUT(18),
  /** A distributed operation failed: a peer's connection closed, the ranks disagree on sizes or
   * dtypes, or the engine reported an error. */
  DISTRIBUTED(19);

  private final int code;

  Status(int code) {
    this.code = code;
  }

  /**
   * The {@code ct_status} value.
   *
   * @return the code, fixed forever
   */
  public int code() {
    return code;
  }

  /**
   * The status of a code; unknown codes are {@link #INTERNAL}, as the header asks.
   *
   * @param code a {@code ct_status} value
   * @return its status
   */
  public static Status of(int code) {
    Status[] all = values();
    return code >= 0 && code < all.length ? all[code] : INTERNAL;
  }
}
