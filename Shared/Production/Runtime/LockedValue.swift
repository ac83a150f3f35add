#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`: the one lock of the project, with the shape of
/// `Synchronization.Mutex` (`withLock { value in … }`).
///
/// Why not `Mutex`: on Linux its futex-based lock runs inside the Swift runtime, which is not built with
/// ThreadSanitizer, so TSan sees no ordering between two critical sections and reports every access they
/// protect as a race (`scripts/sanitize`; checked with a two-thread append, which TSan flagged under
/// `Mutex` and not under this). `pthread_mutex_lock` is intercepted by TSan, and costs about the same
/// uncontended. The mutex lives in its own allocation (it must not move) and is destroyed in `deinit`.
///
/// Thread safety (`@unchecked Sendable`, like `Mutex`): `value` is only touched inside `withLock`, under the
/// mutex; the body must not call `withLock` on the same instance again (the mutex is not recursive).
public final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    @inlinable
    func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    @inlinable
    func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed: \(status)")
    }
}
