package org.ctorch;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An object owning exactly one reference to a ctorch handle. {@link #close()} releases it once
 * (closing again does nothing); a {@link Cleaner} releases the reference of an object that became
 * unreachable without being closed, and counts it as a leak ({@link CTorch#leakedObjects()}, one
 * warning on the {@code org.ctorch} logger). A {@link TensorScope} open on the creating thread
 * closes the object when the scope closes.
 *
 * <p>Threads: methods may be called from any thread; closing an object while another thread
 * still uses it is the caller's race (the other call then fails with an
 * {@link InvalidArgumentException}, or reads a released handle).
 */
public abstract class NativeObject implements AutoCloseable {
  static final Cleaner CLEANER = Cleaner.create();

  static {
    CTorch.ensureLoaded();
    org.ctorch.jni.Access.install(new Bridge());
  }
  private static final AtomicLong LEAKED = new AtomicLong();
  private static final AtomicLong CLEANED = new AtomicLong();

  private final Ref ref;
  private final Cleaner.Cleanable cleanable;

  /** The releasing state, kept apart from the object so that the Cleaner can run it. */
  private static final class Ref implements Runnable {
    // Plain fields: Cleanable.clean() runs run() once, after close() wrote explicit on the same
    // thread; another thread racing a close is the caller's race (see the class comment).
    private long handle;
    private final Kinds.Kind kind;
    private boolean explicit;

    Ref(long handle, Kinds.Kind kind) {
      this.handle = handle;
      this.kind = kind;
    }

    @Override
    public void run() {
      long h = handle;
      handle = 0;
      if (!explicit) {
        CLEANED.incrementAndGet();
        if (LEAKED.getAndIncrement() == 0) {
          System.getLogger("org.ctorch").log(System.Logger.Level.WARNING,
              "a " + kind.name() + " was not closed; the Cleaner released it (further leaks are only counted: "
                  + "CTorch.leakedObjects()). Close objects with try-with-resources or a TensorScope");
        }
      }
      kind.release(h);
    }
  }

  NativeObject(long handle, Kinds.Kind kind) {
    if (handle == 0) {
      throw new InternalException(kind.name() + ": the library returned a NULL handle");
    }
    ref = new Ref(handle, kind);
    cleanable = CLEANER.register(this, ref);
    TensorScope.track(this);
  }

  /**
   * The handle, for calls into {@code org.ctorch.jni}.
   *
   * @return the handle's address
   * @throws InvalidArgumentException when the object was closed
   */
  final long handle() {
    long h = ref.handle;
    if (h == 0) {
      throw new InvalidArgumentException(ref.kind.name() + " was closed. Keep it open (or share() it) while using it");
    }
    return h;
  }

  /**
   * Whether {@link #close()} ran (or the Cleaner released this object).
   *
   * @return true once the reference is released
   */
  public final boolean isClosed() {
    return ref.handle == 0;
  }

  /** Releases this object's reference; later calls do nothing. */
  @Override
  public final void close() {
    ref.explicit = true;
    cleanable.clean();
  }

  /** What org.ctorch.nn and org.ctorch.optim reach through org.ctorch.jni.Access. */
  private static final class Bridge implements org.ctorch.jni.Access.Bridge {
    @Override
    public long handle(NativeObject o, String what) {
      return Native.handle(o, what);
    }

    @Override
    public Tensor tensor(long newReference) {
      return new Tensor(newReference);
    }

    @Override
    public NativeObject own(long newReference, String kind, java.util.function.LongConsumer release) {
      return new Owner(newReference, kind, release);
    }
  }

  /** An object owning a handle of a kind org.ctorch's subpackages define. */
  private static final class Owner extends NativeObject {
    Owner(long handle, String kind, java.util.function.LongConsumer release) {
      super(handle, Kinds.of(kind, release));
    }
  }

  static long leaked() {
    return LEAKED.get();
  }

  static long cleaned() {
    return CLEANED.get();
  }
}
