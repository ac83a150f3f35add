import Contracts
import Runtime
import Kafka

/// When a match's plain updates may be fanned out while apns-sender is still sending the match's previous
/// event: the overload rule of la-coordinator (docs/OPERATING.md, "When a match outruns the fan-out").
///
/// A fan-out of N followers takes N pushes whatever changed; when events come faster than that, sending every
/// plain update to every device only builds a backlog of states that are old before they leave. So, per match:
/// - **Key events and ends are never held**: they are fanned out at once (and supersede a held plain update).
/// - **A plain update waits while the match's previous fan-out is still being sent** — until apns-sender's group
///   has committed past every job of it (of them, when a key event's began meanwhile) — and then for as long again
///   as one fan-out took (at least
///   `minimumSpacing`): plain updates of an overloaded match use at most about half of the fan-out's time, and a
///   key event arriving meanwhile finds apns-sender free. A newer event replaces the held one (latest wins: each
///   carries the whole state), so every device's next push carries the newest state.
/// - **Bounded**: a plain update is never held longer than `maximumHold` after the previous fan-out began (a
///   stopped or lagging apns-sender must not freeze the scores; its backlog then grows as before).
///
/// Pure state: the caller (`MatchEventPipeline`) feeds it the events, the fan-outs it made, the sender group's committed
/// offsets and the clock (Unix milliseconds), and keeps a held event's offset uncommitted (`holdFloor`) so that a
/// crash or a rebalance hands it to the next owner.
public struct PlainUpdateGate: Sendable {
    /// The gate's timings.
    public struct Settings: Sendable, Equatable {
        /// The least wait after the previous fan-out finished (also the wait when it took less).
        public var minimumSpacing: Duration
        /// The most a plain update waits after the previous fan-out of its match began.
        public var maximumHold: Duration

        public init(minimumSpacing: Duration = .seconds(1), maximumHold: Duration = .seconds(30)) {
            self.minimumSpacing = minimumSpacing
            self.maximumHold = maximumHold
        }
    }

    /// A plain update waiting for its match's fan-out to clear, with where it was read.
    public struct HeldUpdate: Sendable, Equatable {
        public let event: MatchBusEvent
        public let source: KafkaTopicPartition
        public let offset: Int64
        /// When it was first held (Unix ms): an update replacing a held one keeps the first one's time.
        public let heldSince: Int64
    }

    /// What to do with an event now.
    public enum Admission: Sendable, Equatable {
        /// Fan it out now. `superseded`: the held plain update of the match it replaces, if any (not to be sent).
        case fanOutNow(superseded: HeldUpdate?)
        /// Hold it (it is now the match's held update). `superseded`: the older held update it replaced.
        case hold(superseded: HeldUpdate?)
        /// An event older than the match's held update (a redelivery): not to be sent.
        case stale
    }

    /// The match's fan-outs apns-sender has not been through yet (one, or several begun before it was through the
    /// first): when the first began, where their jobs end, how many, and when apns-sender was through them.
    struct Progress: Sendable, Equatable {
        var startedAt: Int64
        var highestOffsets: [Int32: Int64]
        var fanOuts = 1
        var completedAt: Int64?

        /// apns-sender's time for one of them: from the first's start to the last's end, shared out.
        var sendingTime: Int64? { completedAt.map { ($0 - startedAt) / Int64(max(1, fanOuts)) } }
    }

    public let settings: Settings
    private(set) var progress: [String: Progress] = [:]
    private(set) var held: [String: HeldUpdate] = [:]

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Decides what to do with `event`, read at `offset` of `source`, at `now` (Unix ms).
    public mutating func admit(_ event: MatchBusEvent, source: KafkaTopicPartition, offset: Int64, now: Int64) -> Admission {
        let previous = held[event.matchId]
        if let previous, previous.event.seq > event.seq && !LatestWins.isProtected(event) { return .stale }
        if LatestWins.isProtected(event) || isClear(event.matchId, now: now) {
            let superseded = previous.flatMap { $0.event.seq <= event.seq ? $0 : nil }
            if superseded != nil { held[event.matchId] = nil }
            return .fanOutNow(superseded: superseded)
        }
        held[event.matchId] = HeldUpdate(event: event, source: source, offset: offset, heldSince: previous?.heldSince ?? now)
        return .hold(superseded: previous)
    }

    /// Records a fan-out of `matchId` that began at `startedAt` and produced jobs up to `highestOffsets`. When
    /// apns-sender is not through the match's previous one yet, the two are awaited together.
    public mutating func fannedOut(matchId: String, startedAt: Int64, highestOffsets: [Int32: Int64], now: Int64) {
        if var pending = progress[matchId], pending.completedAt == nil {
            pending.highestOffsets.merge(highestOffsets) { max($0, $1) }
            pending.fanOuts += 1
            progress[matchId] = pending
            return
        }
        progress[matchId] = Progress(startedAt: startedAt, highestOffsets: highestOffsets,
                                     completedAt: highestOffsets.isEmpty ? now : nil)
    }

    /// Whether a fan-out still being sent matters to a held update: true when apns-sender's progress is worth
    /// reading (some held update waits on an unfinished fan-out).
    public var isWaitingForSender: Bool {
        held.keys.contains { progress[$0].map { $0.completedAt == nil } ?? false }
    }

    /// Marks fan-outs apns-sender is through: its group committed past every job's offset (`committed`: the
    /// group's next offset per partition of the jobs topic).
    public mutating func senderCommitted(_ committed: [Int32: Int64], now: Int64) {
        for (matchId, entry) in progress where entry.completedAt == nil {
            let done = entry.highestOffsets.allSatisfy { partition, offset in (committed[partition] ?? -1) > offset }
            if done { progress[matchId]?.completedAt = now }
        }
    }

    /// Removes and returns the held updates whose match is clear at `now`, oldest hold first.
    public mutating func release(now: Int64) -> [HeldUpdate] {
        let ready = held.values.filter { isClear($0.event.matchId, now: now) }.sorted { $0.heldSince < $1.heldSince }
        for update in ready { held[update.event.matchId] = nil }
        forgetFinished(now: now)
        return ready
    }

    /// Lets every held update go at the next `release` (the member is stopping).
    public mutating func releaseAll() {
        progress = [:]
    }

    /// The lowest held offset per source partition: the consumer commits no further there.
    public var holdFloor: [KafkaTopicPartition: Int64] {
        var floor: [KafkaTopicPartition: Int64] = [:]
        for update in held.values { floor[update.source] = min(floor[update.source] ?? .max, update.offset) }
        return floor
    }

    /// Held updates in all.
    public var heldCount: Int { held.count }

    /// The earliest time a held update may be released without news from apns-sender (spacing or the bound), if any.
    public var nextDeadline: Int64? {
        held.keys.compactMap { clearsAt($0) }.min()
    }

    /// Forgets held updates read from partitions this member no longer owns (their next owner reads them again).
    public mutating func keepOnly(_ owned: Set<KafkaTopicPartition>) {
        held = held.filter { owned.contains($0.value.source) }
    }

    /// Whether a plain update of `matchId` may be fanned out at `now`.
    func isClear(_ matchId: String, now: Int64) -> Bool {
        guard let at = clearsAt(matchId) else { return true }
        return now >= at
    }

    /// When `matchId`'s fan-outs stop holding plain updates back: once apns-sender is through them, after as long
    /// again as one took (at least the minimum spacing); else the hold bound after the first began.
    func clearsAt(_ matchId: String) -> Int64? {
        guard let entry = progress[matchId] else { return nil }
        let bound = entry.startedAt + settings.maximumHold.wholeMilliseconds
        guard let completedAt = entry.completedAt, let sendingTime = entry.sendingTime else { return bound }
        return min(bound, completedAt + max(settings.minimumSpacing.wholeMilliseconds, sendingTime))
    }

    /// Drops the progress of matches with nothing held whose last fan-out no longer holds anything back.
    private mutating func forgetFinished(now: Int64) {
        progress = progress.filter { matchId, _ in held[matchId] != nil || (clearsAt(matchId).map { now < $0 } ?? false) }
    }
}
