import Runtime

/// Bounded retries with exponential backoff, slept on the injected `ClientClock`.
public struct RetryPolicy: Sendable, Equatable {
    /// Total attempts including the first (at least 1).
    public var maxAttempts: Int
    /// Delay before the second attempt, in seconds.
    public var initialDelay: Double
    /// Each later delay is the previous one times this.
    public var multiplier: Double
    /// Upper bound of a single delay, in seconds.
    public var maxDelay: Double

    public init(maxAttempts: Int = 4, initialDelay: Double = 1, multiplier: Double = 2, maxDelay: Double = 30) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
    }

    /// The project's one back-off with these figures.
    public var backoff: Backoff {
        Backoff(initial: .nanoseconds(Int64(initialDelay * 1e9)), maximum: .nanoseconds(Int64(maxDelay * 1e9)), multiplier: multiplier)
    }

    /// The delays slept between attempts: `maxAttempts - 1` values, in seconds.
    public var delays: [Double] {
        let backoff = self.backoff
        return (1..<maxAttempts).map { backoff.delay(afterFailures: $0).seconds }
    }

    /// Runs `operation` until it succeeds or the attempts run out; returns the outcome.
    func run(clock: any ClientClock, _ operation: @Sendable () async throws -> Void) async -> RetryOutcome {
        let delays = self.delays
        var lastError = ""
        for attempt in 1...maxAttempts {
            do {
                try await operation()
                return .succeeded(attempts: attempt)
            } catch {
                lastError = String(describing: error)
            }
            guard attempt < maxAttempts else { break }
            do {
                try await clock.sleep(seconds: delays[attempt - 1])
            } catch {
                return .failed(attempts: attempt, lastError: "cancelled")
            }
        }
        return .failed(attempts: maxAttempts, lastError: lastError)
    }
}

/// What a retried operation came to.
public enum RetryOutcome: Sendable, Equatable {
    case succeeded(attempts: Int)
    case failed(attempts: Int, lastError: String)

    public var succeeded: Bool {
        if case .succeeded = self { return true }
        return false
    }
}
