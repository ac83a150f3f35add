/// What the detector says about a match after a snapshot: the display state now, and whether
/// something happened that deserves an alert. Topic `match.events`, key matchId.
public struct MatchBusEvent: VersionedMessage, Equatable {
    public static let currentSchema = 1
    /// The bound on an encoded event: 64 KiB (a display state is at most a few KB; it never grows with the match).
    public static let maximumBytes = 65_536
    public static let topic = Topic.matchEvents

    public var schema: Int
    /// Deterministic id (same snapshot → same id), e.g. "71344:57".
    public var eventId: String
    public var matchId: String
    /// Per-match sequence, strictly increasing with each emitted event.
    public var seq: Int64
    /// Unix epoch milliseconds: the `polledAt` of the snapshot the detector saw this in — when this content became
    /// known to the system (the payload's `timestamp`, and where a push's freshness counts from).
    public var emittedAt: Int64
    /// The feed's own time of the newest ball in that snapshot (its `updated_at`), Unix epoch milliseconds; nil when
    /// the snapshot has no ball with one.
    public var ballAt: Int64?
    public var displayState: UnifiedDisplayState
    /// Set when something alert-worthy (priority 10) or notable (priority 5) happened.
    public var keyEvent: KeyEvent?
    public var phase: MatchPhase

    public init(eventId: String, matchId: String, seq: Int64, emittedAt: Int64, ballAt: Int64? = nil, displayState: UnifiedDisplayState,
                keyEvent: KeyEvent?, phase: MatchPhase) {
        self.schema = Self.currentSchema
        self.eventId = eventId
        self.matchId = matchId
        self.seq = seq
        self.emittedAt = emittedAt
        self.ballAt = ballAt
        self.displayState = displayState
        self.keyEvent = keyEvent
        self.phase = phase
    }

    /// True when this event ends the match's Live Activities (event "end" with a dismissal-date).
    public var endsMatch: Bool { phase == .ended }

    /// True when this event closes a day of play (stumps) of a match that goes on: the day's Live
    /// Activities end with it, showing the close-of-play state, and new ones start when play resumes.
    public var endsDay: Bool { keyEvent?.kind == .stumps && !endsMatch }

    /// True when the pushes of this event are end pushes: the match's end or a day's close.
    public var endsActivities: Bool { endsMatch || endsDay }
}

/// Something that happened in a match.
public struct KeyEvent: Codable, Sendable, Equatable {
    public var kind: KeyEventKind
    /// 10: alert-worthy, delivered immediately with an alert; 5: silent.
    public var priority: Int
    /// Shown when priority is 10.
    public var alert: Alert?

    public init(kind: KeyEventKind, priority: Int, alert: Alert?) {
        self.kind = kind
        self.priority = priority
        self.alert = alert
    }
}

/// An alert's text, e.g. {"title": "Wicket!", "body": "Rohit Sharma c Kohli b Bumrah 45 (32)"}.
public struct Alert: Codable, Sendable, Equatable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

/// The kinds of key event the detector emits.
public enum KeyEventKind: String, Codable, Sendable, CaseIterable {
    case matchStart
    case runs
    case four
    case six
    case wicket
    case fifty
    case hundred
    case fiveFor
    case hatTrick
    case inningsEnd
    case targetSet
    case superOver
    case interruption
    case resumed
    /// Close of play on a day of a multi-day match ("Stump Day N"); silent, it ends the day's activities.
    case stumps
    case result
    case matchEnd
}

/// The phase of a match as the Live Activity shows it (`matchDisplayState`).
public enum MatchPhase: String, Codable, Sendable, CaseIterable {
    case upcoming
    case live
    case inningsBreak
    case interrupted
    case ended
}
