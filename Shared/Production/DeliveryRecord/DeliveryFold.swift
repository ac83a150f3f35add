import Contracts
import Runtime

/// The row a delivery belongs to: a Live Activity (match, user, device) or a broadcast channel (match, "", environment).
public struct DeliverySubject: Hashable, Sendable, Comparable {
    public var matchId: String
    public var userId: String
    public var deviceId: String

    public init(matchId: String, userId: String, deviceId: String) {
        self.matchId = matchId
        self.userId = userId
        self.deviceId = deviceId
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.matchId, a.userId, a.deviceId) < (b.matchId, b.userId, b.deviceId)
    }

    /// FNV-1a 64 of the three ids: the writers' lock order.
    var order: UInt64 {
        var hash = FNV1a()
        for (index, id) in [matchId, userId, deviceId].enumerated() {
            if index > 0 { hash.combine(UInt8(0)) }
            var id = id
            id.withUTF8 { hash.combine($0) }
        }
        return hash.value
    }
}

/// What a batch of outcomes adds to one row of the record.
public struct DeliveryDelta: Sendable, Equatable {
    public var channelId: String?
    public var sent = 0
    public var accepted = 0
    public var refused = 0
    /// Requests beyond the first, over the pushes.
    public var retried = 0
    public var superseded = 0
    public var dead = 0
    /// The newest entry of each kind that has a `last_*` column (start, update, key event, end).
    public var last: [DeliveryKind: DeliveryEntry] = [:]
    /// The newest refused or dead delivery.
    public var lastFailure: DeliveryEntry?
    /// Newest first, at most `DeliveryFold.recentLimit`.
    public var recent: [DeliveryEntry] = []
    /// The freshness (ms) of the newest accepted update or key event, and when it finished.
    public var freshnessMs: Int64?
    public var freshnessAt: Int64 = 0
    public var firstAt = Int64.max
    public var lastAt = Int64.min

    mutating func add(_ entry: DeliveryEntry) {
        if entry.tries > 0 { sent += 1 }
        retried += max(0, entry.tries - 1)
        switch entry.result {
        case .accepted: accepted += 1
        case .refused: refused += 1
        case .dead: dead += 1
        case .superseded: superseded += 1
        }
        if DeliveryFold.lastKinds.contains(entry.kind), last[entry.kind].map({ $0.finishedAt <= entry.finishedAt }) ?? true {
            last[entry.kind] = entry
        }
        if entry.result == .refused || entry.result == .dead, lastFailure.map({ $0.finishedAt <= entry.finishedAt }) ?? true {
            lastFailure = entry
        }
        if entry.kind == .update || entry.kind == .keyEvent, entry.result == .accepted, let freshness = entry.freshnessMs,
           entry.finishedAt >= freshnessAt {
            freshnessMs = freshness
            freshnessAt = entry.finishedAt
        }
        let index = recent.firstIndex { $0.finishedAt < entry.finishedAt } ?? recent.endIndex
        recent.insert(entry, at: index)
        if recent.count > DeliveryFold.recentLimit { recent.removeLast() }
        firstAt = min(firstAt, entry.finishedAt)
        lastAt = max(lastAt, entry.finishedAt)
    }
}

/// Folds `PushOutcome`s into per-row deltas: several outcomes of one activity in a batch make one row write.
public struct DeliveryFold: Sendable {
    /// The bounded history kept per row.
    public static let recentLimit = 20
    /// The kinds with their own "last delivery" column.
    public static let lastKinds: Set<DeliveryKind> = [.start, .update, .keyEvent, .end]

    public private(set) var deltas: [DeliverySubject: DeliveryDelta] = [:]
    /// What each job's pushes share, by job id (stored once per job).
    public private(set) var jobs: [String: DeliveryJob] = [:]
    /// Pushes folded (targets, or broadcasts).
    public private(set) var pushes = 0

    public init() {}

    /// Adds every result of `outcome`.
    public mutating func add(_ outcome: PushOutcome) {
        jobs[outcome.jobId] = DeliveryJob(outcome)
        for result in outcome.results {
            let subject = outcome.channel.map { DeliverySubject(matchId: outcome.matchId, userId: "", deviceId: $0.env.rawValue) }
                ?? DeliverySubject(matchId: outcome.matchId, userId: result.userId, deviceId: result.deviceId)
            let entry = DeliveryEntry(outcome, result)
            deltas[subject, default: DeliveryDelta()].add(entry)
            if outcome.channel != nil { deltas[subject]?.channelId = result.token }
            pushes += 1
        }
    }

    public var isEmpty: Bool { deltas.isEmpty }
}
