import Contracts

/// Something the detector found in a snapshot. Every detected event is emitted (and counted); whether it
/// alerts is decided afterwards by `AlertPolicy` and the cooldowns, so alert suppression never hides an event.
public struct DetectedEvent: Sendable, Equatable, Codable {
    public var kind: KeyEventKind
    /// Deterministic identity: "wicket:11445040123", "fifty:S1:253341", "inningsEnd:S1", "result".
    public var key: String
    /// The innings it belongs to ("S1"); nil for match-level events.
    public var scoreboard: String?
    /// The delivery it happened on, when it happened on one.
    public var ballId: Int?
    /// Alert title: "Wicket! IND 87/6".
    public var title: String
    /// Alert body: "Rohit Sharma c Kohli b Bumrah 45 (32)".
    public var body: String
    /// True for a D/L revision of an announced target (the only alert-worthy `targetSet`).
    public var isRevision: Bool
    /// Position in the snapshot: (delivery index, order within the delivery) — events sort by it.
    var position: Int
    var subOrder: Int

    public init(kind: KeyEventKind, key: String, scoreboard: String?, ballId: Int?, title: String, body: String,
                isRevision: Bool = false, position: Int, subOrder: Int) {
        self.kind = kind
        self.key = key
        self.scoreboard = scoreboard
        self.ballId = ballId
        self.title = title
        self.body = body
        self.isRevision = isRevision
        self.position = position
        self.subOrder = subOrder
    }

    /// The Lock Screen footer line: "Wicket! IND 87/6 · Rohit Sharma c Kohli b Bumrah 45 (32)".
    public var line: String { body.isEmpty ? title : "\(title) · \(body)" }
}
