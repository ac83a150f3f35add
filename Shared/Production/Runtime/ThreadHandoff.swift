/// Awaits a value produced on a thread Swift's concurrency runtime does not run — a serial `DispatchQueue`
/// doing a blocking C call, a C library's own thread — and resumed from there.
///
/// The value travels through a `LockedValue` (a pthread mutex) beside the continuation: written under the
/// lock before the resume, read under it after the await. The continuation alone orders the two threads
/// correctly, but ThreadSanitizer on Linux does not see that ordering (a class built on a dispatch queue
/// and read after `withCheckedContinuation` returns is reported as a race, checked with a two-line
/// program), so every value handed back by a blocking call would be a false report in `scripts/sanitize`;
/// with the lock TSan sees the hand-off, for the cost of two uncontended lock operations per call.
public enum ThreadHandoff {
    /// The resuming side: call exactly one `resume` exactly once, from any thread.
    public struct Resumer<Value: Sendable>: Sendable {
        let box: LockedValue<Result<Value, any Error>?>
        let continuation: CheckedContinuation<Void, Never>

        public func resume(with result: Result<Value, any Error>) {
            box.withLock { $0 = result }
            continuation.resume()
        }

        public func resume(returning value: Value) { resume(with: .success(value)) }
    }

    /// Runs `start` (which hands the resumer to another thread) and suspends until it is resumed.
    /// - Throws: the error it was resumed with.
    public static func value<Value: Sendable>(_ start: (Resumer<Value>) -> Void) async throws -> Value {
        let box = LockedValue<Result<Value, any Error>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            start(Resumer(box: box, continuation: continuation))
        }
        return try box.withLock { $0! }.get()
    }
}
