import Foundation

/// The conversions of `Duration` the project needs, in one place (C timeouts, logs, Foundation intervals).
extension Duration {
    /// The duration in seconds as a `Double` (Foundation's `TimeInterval`).
    public var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded toward zero (librdkafka's and PostgreSQL's unit for most times, and logs).
    public var wholeMilliseconds: Int64 {
        let (whole, attoseconds) = components
        return whole * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds as a C `int` for C timeouts, clamped to 0...Int32.max.
    public var timeoutMilliseconds: Int32 {
        Int32(clamping: max(0, wholeMilliseconds))
    }

    /// Nanoseconds, 0 for a negative duration and `UInt64.max` past it (for `Task.sleep(nanoseconds:)`
    /// and C clocks).
    public var nanoseconds: UInt64 {
        let (whole, attoseconds) = components
        let (seconds, overflow) = UInt64(max(0, whole)).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = seconds.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflow || carry ? .max : total
    }
}

/// A number of seconds as people read it in a report line: "850 ms", "2.4 s".
public enum SecondsText {
    public static func of(_ seconds: Double) -> String {
        seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.1f s", seconds)
    }
}
