import Dispatch

/// Runs blocking librdkafka calls off Swift's cooperative pool.
enum Blocking {
    /// Runs `body` on `queue` (a serial queue owned by one client) and resumes with its result.
    static func run<T: Sendable>(on queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
