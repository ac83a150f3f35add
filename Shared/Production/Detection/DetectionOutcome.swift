import Contracts

/// What processing one snapshot produced.
public struct DetectionOutcome: Sendable {
    /// Whether the snapshot moved the match on.
    public enum Disposition: String, Sendable, CaseIterable {
        /// Newer than anything seen: events (if any) and state are new.
        case accepted
        /// The same snapshot again (same newest ball, same `polledAt`): nothing emitted.
        case duplicate
        /// Older than the state (fewer balls, or an earlier poll of the same balls): ignored, display kept.
        case stale
        /// The same balls as the state, none of them corrected, but an innings total below the one already shown (a
        /// feed response whose score went backwards): ignored, display kept. Shown, it would put an older score on the
        /// Lock Screen — and at the finish, end every Live Activity on it.
        case scoreBackwards = "score_backwards"
    }

    public var disposition: Disposition
    /// The bus events to produce, in order, with consecutive `seq`.
    public var events: [MatchBusEvent]
    /// Every event detected, in order (one per bus event that carries a key event).
    public var detected: [DetectedEvent]
    /// The state to store once the events are produced.
    public var state: DetectorState
    /// The raw status when SportMonks sent a string nobody documented (log it and count it).
    public var unknownStatus: String?
    /// Ids of recent balls whose outcome changed since the previous snapshot (corrections).
    public var correctedBallIds: [Int]
    /// The feed's outcome or innings fields that disagree with its balls (ignored; log and count each).
    public var contradictions: [FeedContradiction] = []
}
