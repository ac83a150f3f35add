import Foundation

/// Capped exponential back-off: after the n-th consecutive failure,
/// `min(maximum, initial · multiplier^(n-1))`, optionally with "equal jitter". The one back-off in
/// the project: every retry loop (services, the APNs and HTTP/2 clients, the simulated app's
/// ClientCore) takes its delays from one of these.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    /// Growth per failure (2 doubles; 1 keeps the delay constant).
    public var multiplier: Double
    /// Failures counted by ``next()`` since the last ``reset()``.
    public private(set) var failures = 0

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), multiplier: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = max(1, multiplier)
    }

    /// `min(maximum, initial · multiplier^(failures-1))` for `failures` ≥ 1 consecutive failures.
    public func delay(afterFailures failures: Int) -> Duration {
        let exponent = min(max(0, failures - 1), 60)
        if multiplier == 2 { return min(maximum, initial * (1 << min(exponent, 30))) }
        let scaled = initial.seconds * pow(multiplier, Double(exponent))
        return scaled >= maximum.seconds ? maximum : .nanoseconds(Int64((scaled * 1e9).rounded()))
    }

    /// The same delay with equal jitter: scaled by `0.5 + 0.5 · r` for a random draw `r` in [0, 1),
    /// rounded to whole milliseconds (so that many clients do not retry in step).
    public func delay(afterFailures failures: Int, random r: Double) -> Duration {
        let factor = 0.5 + 0.5 * min(max(r, 0), 1)
        return .milliseconds(Int64((Double(delay(afterFailures: failures).wholeMilliseconds) * factor).rounded()))
    }

    /// The jittered delay with a fresh random draw.
    public func jitteredDelay(afterFailures failures: Int) -> Duration {
        delay(afterFailures: failures, random: Double.random(in: 0..<1))
    }

    /// Counts one more failure and returns the delay to wait now (no jitter).
    public mutating func next() -> Duration {
        failures += 1
        return delay(afterFailures: failures)
    }

    /// Back to `initial` (after a success).
    public mutating func reset() { failures = 0 }
}
