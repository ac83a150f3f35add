/// One broken promise found by the match-day checker, with the evidence to look it up: the token (masked as support
/// sees it), the mock's sequence numbers of the pushes involved and what they carried.
public struct MatchDayViolation: Sendable, Equatable, CustomStringConvertible {
    /// The promises the checker holds the system to (issue 42).
    public enum Rule: String, Sendable, CaseIterable {
        /// A device was sent an older state after a newer one (ActivityKit drops it; the Lock Screen shows it).
        case olderAfterNewer = "older_after_newer"
        /// A push went to a token after APNs had refused it (410 Unregistered, 400 BadDeviceToken), past the grace.
        case pushAfterRefusal = "push_after_refusal"
        /// The same payload was accepted twice for one token (a key-event alert shown twice).
        case duplicate
        /// A push went to an activity after its end push had been accepted (ActivityKit drops it: wasted, and a sign
        /// the end overtook an update).
        case pushAfterEnd = "push_after_end"
        /// The services' delivery record (what support reads) disagrees with what APNs accepted for a device.
        case recordDisagrees = "record_disagrees"
        /// A follow of a live match brought no start push to the user's devices within the limit (30 s).
        case startAfterFollow = "start_after_follow"
    }

    public var rule: Rule
    /// "…" and the token's last 8 characters.
    public var token: String
    /// The mock's sequence numbers of the pushes involved, oldest first.
    public var sequences: [Int]
    /// What happened, in one sentence.
    public var detail: String

    public init(rule: Rule, token: String, sequences: [Int], detail: String) {
        self.rule = rule
        self.token = token
        self.sequences = sequences
        self.detail = detail
    }

    public var description: String { "\(rule.rawValue) \(token) seq \(sequences.map(String.init).joined(separator: ",")): \(detail)" }
}
