package org.ctorch;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An object owning exactly one reference to a ctorch handle. {@link #close()} releases it once
 * (closing again does nothing); an object that became unreachable without being closed is
 * released by a daemon thread ({@code ctorch-cleaner}) and counted as a leak
 * ({@link CTorch#leakedObjects()}, one warning on the {@code org.ctorch} logger). A
 * {@link TensorScope} open on the creating thread closes the object when the scope closes.
 *
 * <p>Threads: methods may be called from any thread; closing an object while another thread
 * still uses it is the caller's race (the other call then fails with an
 * {@link InvalidArgumentException}, or reads a released handle).
 *
 * <p>Note [Releasing without a lock]: every operator result is one of these, so creating and
 * closing one is on the per-call path (bench/java/PerOp.java). A java.lang.ref.Cleaner costs two
 * allocations and a lock on each of register and clean, about as much as the C call itself. The
 * safety net here is one PhantomReference per object ({@link Ref}, which also holds the handle)
 * kept reachable by a list of the creating thread that only that thread changes: close() just
 * zeroes the handle, and the thread drops zeroed entries when its list is full (a dropped Ref is
 * garbage, never enqueued). INVARIANT: a Ref's handle goes from non-zero to 0 once, after its
 * release (by close() or by the cleaner), so a stale read only keeps an entry longer. Lists outlive their threads (a
 * tensor may outlive the thread that made it); the cleaner prunes those of ended threads.
 */
public abstract class NativeObject implements AutoCloseable {
  static {
    CTorch.ensureLoaded();
    org.ctorch.jni.Access.install(new Bridge());
  }
  private static final AtomicLong LEAKED = new AtomicLong();
  private static final AtomicLong CLEANED = new AtomicLong();
  private static final ReferenceQueue<NativeObject> UNREACHABLE = new ReferenceQueue<>();
  /** Every thread's list, ended threads' included until the cleaner empties them. */
  private static final List<Refs> ALL_REFS = new ArrayList<>();
  private static final ThreadLocal<Refs> REFS = ThreadLocal.withInitial(() -> {
    Refs refs = new Refs();
    synchronized (ALL_REFS) {
      ALL_REFS.add(refs);
    }
    return refs;
  });

  static {
    Thread cleaner = new Thread(NativeObject::releaseUnreachable, "ctorch-cleaner");
    cleaner.setDaemon(true);
    cleaner.start();
  }

  private final Ref ref;

  /** The handle of an object and how to release it; enqueued when the object is unreachable. */
  private static final class Ref extends PhantomReference<NativeObject> {
    // Plain: see Note [Releasing without a lock].
    long handle;
    final Kinds.Kind kind;

    Ref(NativeObject owner, long handle, Kinds.Kind kind) {
      super(owner, UNREACHABLE);
      this.handle = handle;
      this.kind = kind;
    }
  }

  /** The Refs one thread created; only that thread changes it while it runs. */
  private static final class Refs {
    private static final int MIN = 64;
    final Thread thread = Thread.currentThread();
    Ref[] refs = new Ref[MIN];
    int size;

    void add(Ref r) {
      if (size == refs.length) {
        prune();
        if (size > refs.length / 2) {
          refs = Arrays.copyOf(refs, refs.length * 2);
        } else if (size < refs.length / 4 && refs.length > MIN) {
          refs = Arrays.copyOf(refs, refs.length / 2);
        }
      }
      refs[size++] = r;
    }

    /** Drops the entries whose handle was released. */
    void prune() {
      int kept = 0;
      for (int i = 0; i < size; i++) {
        if (refs[i].handle != 0) {
          refs[kept++] = refs[i];
        }
      }
      Arrays.fill(refs, kept, size, null);
      size = kept;
    }
  }

  /** The cleaner thread: releases what became unreachable, and prunes ended threads' lists. */
  private static void releaseUnreachable() {
    long lastPrune = System.nanoTime();
    while (true) {
      try {
        Ref r = (Ref) UNREACHABLE.remove(10_000);
        if (r != null) {
          releaseLeaked(r);
        }
        if (System.nanoTime() - lastPrune > 10_000_000_000L) {
          lastPrune = System.nanoTime();
          pruneEndedThreads();
        }
      } catch (Throwable t) {
        // Keep the thread: the next unreachable object still needs it.
      }
    }
  }

  private static void releaseLeaked(Ref r) {
    long h = r.handle;
    r.handle = 0;
    if (h == 0) {
      return;
    }
    CLEANED.incrementAndGet();
    if (LEAKED.getAndIncrement() == 0) {
      System.getLogger("org.ctorch").log(System.Logger.Level.WARNING,
          "a " + r.kind.name() + " was not closed; the cleaner released it (further leaks are only counted: "
              + "CTorch.leakedObjects()). Close objects with try-with-resources or a TensorScope");
    }
    r.kind.release(h);
  }

  private static void pruneEndedThreads() {
    synchronized (ALL_REFS) {
      // An ended thread changes its list no more (and isAlive() saw all its writes).
      ALL_REFS.removeIf(refs -> {
        if (refs.thread.isAlive()) {
          return false;
        }
        refs.prune();
        return refs.size == 0;
      });
    }
  }

  NativeObject(long handle, Kinds.Kind kind) {
    if (handle == 0) {
      throw new InternalException(kind.name() + ": the library returned a NULL handle");
    }
    ref = new Ref(this, handle, kind);
    REFS.get().add(ref);
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
   * Whether {@link #close()} ran (or the cleaner released this object).
   *
   * @return true once the reference is released
   */
  public final boolean isClosed() {
    return ref.handle == 0;
  }

  /** Releases this object's reference; later calls do nothing. */
  @Override
  public final void close() {
    Ref r = ref;
    long h = r.handle;
    if (h != 0) {
      // No r.clear(): a native call, as long as the rest of close(). A closed object's Ref may
      // still be enqueued if the object dies before its thread prunes the entry; the cleaner then
      // reads 0 (the fence below orders this write before the GC's enqueue) and does nothing.
      r.handle = 0;
      r.kind.release(h);
    }
    Reference.reachabilityFence(this);
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
