package org.ctorch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;

/**
 * Closes every ctorch object created inside it on this thread: tensors, symbolic numbers,
 * programs... Scopes nest; an object belongs to the innermost scope open on the thread that
 * created it. {@link #keep} takes an object out of the scope (into the enclosing one, if any).
 *
 * <pre>{@code
 * try (var scope = new TensorScope()) {
 *   Tensor y = x.matmul(w).relu();      // closed with the scope
 *   result = scope.keep(y.sum());       // survives it
 * }
 * }</pre>
 *
 * <p>Threads: a scope belongs to the thread that opened it; close it on that thread.
 */
public final class TensorScope implements AutoCloseable {
  private static final ThreadLocal<ArrayDeque<TensorScope>> SCOPES = ThreadLocal.withInitial(ArrayDeque::new);
  /** Scopes open on all threads: when 0, creating an object skips the thread-local lookup. */
  private static volatile int open;

  private final ArrayList<NativeObject> owned = new ArrayList<>();
  private final Thread thread = Thread.currentThread();
  private boolean closed;

  /** Opens a scope on this thread. */
  public TensorScope() {
    SCOPES.get().push(this);
    synchronized (TensorScope.class) {
      open++;
    }
  }

  static void track(NativeObject object) {
    if (open == 0) {
      return;
    }
    TensorScope scope = SCOPES.get().peek();
    if (scope != null) {
      scope.owned.add(object);
    }
  }

  /**
   * Takes object out of this scope, so closing the scope leaves it open; it joins the enclosing
   * scope, if there is one.
   *
   * @param object an object created inside this scope
   * @param <T> its type
   * @return object
   */
  public <T extends NativeObject> T keep(T object) {
    for (int i = owned.size() - 1; i >= 0; i--) {
      if (owned.get(i) == object) {
        owned.remove(i);
        break;
      }
    }
    // Scopes iterate innermost first: the one after this is the enclosing scope.
    Iterator<TensorScope> it = SCOPES.get().iterator();
    while (it.hasNext()) {
      if (it.next() == this) {
        if (it.hasNext()) {
          it.next().owned.add(object);
        }
        break;
      }
    }
    return object;
  }

  /**
   * How many objects this scope will close.
   *
   * @return the count of objects created in it and not kept
   */
  public int size() {
    return owned.size();
  }

  /** Closes every object of this scope, newest first; closing again does nothing. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (Thread.currentThread() != thread) {
      throw new InvalidArgumentException("TensorScope.close: a scope is closed on the thread that opened it");
    }
    closed = true;
    SCOPES.get().remove(this);
    synchronized (TensorScope.class) {
      open--;
    }
    for (int i = owned.size() - 1; i >= 0; i--) {
      owned.get(i).close();
    }
    owned.clear();
  }
}
