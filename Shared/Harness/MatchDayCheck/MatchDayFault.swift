/// A fault the match-day driver injected, as the checker reads it: its kind ("kill apns-sender", "pause broker 20 s")
/// and when it began and was over, in Unix milliseconds (the clock mock-apns stamps pushes with).
public struct MatchDayFault: Sendable, Hashable, Codable {
    public var kind: String
    public var start: Int64
    public var end: Int64

    public init(kind: String, start: Int64, end: Int64) {
        self.kind = kind
        self.start = start
        self.end = max(start, end)
    }

    /// The window in which the fault's effects are excused: from `lead` milliseconds before its start to `margin`
    /// milliseconds after its end.
    public func window(margin: Int64, lead: Int64 = 0) -> ClosedRange<Int64> {
        let (upper, overflow) = end.addingReportingOverflow(max(0, margin))
        let (lower, underflow) = start.subtractingReportingOverflow(max(0, lead))
        return (underflow ? Int64.min : lower)...(overflow ? Int64.max : upper)
    }
}
