import Dispatch

/// The one place where a blocking call (a C function that joins threads or waits on a socket,
/// `waitpid`, a file read of unknown length) runs when async code needs it: a dedicated
/// concurrent dispatch queue, never Swift's cooperative pool. With two cores the pool has two
/// threads; two blocked callers would stop every task in the process, including the ones they
/// wait for.
///
/// ```swift
/// try await BlockingCalls.run { process.waitUntilExit() }   // the caller suspends, no thread blocks
/// BlockingCalls.detach { daemon.stop() }                     // from a deinit: fire and forget
/// ```
///
/// Long-lived blocking loops (librdkafka polls, libpq connections, epoll) keep their own serial
/// queue or thread, as they do in the Kafka, Postgres and HTTP2 modules.
public enum BlockingCalls {
    /// The shared concurrent queue for one-off blocking calls.
    public static let queue = DispatchQueue(label: "sightscreen.blocking-calls", attributes: .concurrent)

    /// Runs `body` on `queue` (by default the shared blocking-call queue; a client that must keep
    /// its calls in order passes its own serial queue) and suspends until it returns.
    public static func run<Value: Sendable>(
        on queue: DispatchQueue = BlockingCalls.queue, _ body: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await ThreadHandoff.value { resumer in
            queue.async { resumer.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on the blocking-call queue and suspends until it returns (non-throwing form).
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        // `body` cannot throw, so neither can the hand-off.
        try! await ThreadHandoff.value { resumer in
            queue.async { resumer.resume(returning: body()) }
        }
    }

    /// Starts `body` on the blocking-call queue and returns at once (for `deinit`s and other
    /// synchronous code that must not wait).
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }
}
