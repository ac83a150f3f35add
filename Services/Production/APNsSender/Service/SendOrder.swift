import Contracts
import Foundation
import Runtime

/// Never backwards, per device: the order in which apns-sender sends the states of one match to one device.
///
/// Every token job of a match is keyed "matchId:shard" and the shard is the token's hash, so all the states a
/// device gets for a match travel in one partition, in `stateSeq` order, to one apns-sender at a time. This type
/// keeps, per key, the newest `stateSeq` that began sending and the jobs in a send round right now, and decides:
/// - **start** (`mayStart`): a job does not start while a job of its key with an older state is in a round (a
///   request in flight could otherwise reach APNs after the newer one); an end does not start while an update of its
///   key is in a round, whatever its state (it could otherwise reach the device after the end on the other connection);
///   the chunks of one end run side by side;
/// - **each round** (`beginRound`): an update whose key already began sending a newer state is superseded — its
///   devices get (or got) the newer one — whether it is a plain update taken after a key event that overtook it,
///   a retry round after a newer state went out, or an event re-read after a rebalance of la-coordinator. An end
///   is never superseded.
/// - **after an end** (`beginRound`'s `skipping`): once an end push of a device's activity began, no update of its key
///   goes to that update token again, and once APNs accepted it, no other end either (iOS ignores pushes to an ended
///   activity). The api ends one device (unfollow, dismissal) with the state it knows, while la-coordinator may already
///   have read that row as active for the next event: that update reaches the partition after the end, with a newer
///   `stateSeq`, and would otherwise go to an activity that has ended. An update waiting out a back-off when the end
///   began is not retried to it either. An end that went dead releases its tokens (`releaseEnded`). A token is
///   remembered (by its 64-bit FNV-1a hash: ~50 bytes, not the 160-character token) for `endedMemory` after its end's
///   latest round began — longer than any update's expiration.
///
/// Memory of this process only: a few numbers per key (forgotten after `idle` without a job) and the tokens ended in
/// the last `endedMemory`. After a restart or a rebalance of the jobs topic, the new owner starts from the committed
/// offset, which never passes a job still unfinished, so it re-reads at most the jobs after the oldest unfinished one;
/// it does not know the tokens ended before it (an update racing such an end can still reach it).
final class SendOrder: Sendable {
    private struct KeyState {
        var newestStarted: Int64 = .min
        /// Jobs in a round by their `stateSeq`.
        var inRound: [Int64: Int] = [:]
        /// Update jobs in a round (an end waits for them).
        var updatesInRound = 0
        /// Update tokens (by hash) whose activity an end job of this key began to end.
        var ended: [UInt64: Ended] = [:]
        /// The oldest `Ended.at` in `ended` (the sweep skips a key with nothing to forget).
        var oldestEnded: ContinuousClock.Instant?
        var touched: ContinuousClock.Instant
    }

    private struct Ended {
        /// The end job's id (hashed): its own later rounds are not skipped.
        var job: UInt64
        /// When that end's latest round began.
        var at: ContinuousClock.Instant
        /// APNs accepted the end: another end is skipped too.
        var accepted = false
    }

    /// What `beginRound` decided for a round.
    enum Round: Equatable {
        /// A round began (`endRound` must follow); `skipping` (indices into the job's targets) are devices whose
        /// activity another job's end push already ended: they are not sent.
        case begun(skipping: [Int])
        /// No round: the update's key began a newer state already (every target superseded).
        case superseded
        /// No round: every target's activity was ended by another job's end push.
        case allEnded

        /// The targets a begun round skips.
        var skipping: [Int] {
            if case .begun(let skipping) = self { return skipping }
            return []
        }
    }

    private struct State {
        var keys: [String: KeyState] = [:]
        var lastSweep = ContinuousClock.now
    }

    private let state = LockedValue(State())
    private let idle: Duration
    private let endedMemory: Duration
    /// Told when a round ends (a job waiting on it may start).
    private let roundEnded: @Sendable () -> Void

    init(idle: Duration = .seconds(3600), endedMemory: Duration = .seconds(900), roundEnded: @escaping @Sendable () -> Void = {}) {
        self.idle = idle
        self.endedMemory = endedMemory
        self.roundEnded = roundEnded
    }

    /// Whether `job`'s sends follow the per-device order: token jobs carrying a match's state (updates and ends).
    static func isOrdered(_ job: PushJob) -> Bool {
        job.channel == nil && (job.kind == .liveActivityUpdate || job.kind == .liveActivityEnd)
    }

    /// False while a job of `key` with an older state than `job` is in a round.
    func mayStart(_ job: PushJob, key: String) -> Bool {
        guard Self.isOrdered(job) else { return true }
        return state.withLock { state in
            guard let entry = state.keys[key] else { return true }
            if job.kind == .liveActivityEnd && entry.updatesInRound > 0 { return false }
            return !entry.inRound.keys.contains { $0 < job.stateSeq }
        }
    }

    /// Begins a send round of `job` to all its targets (some may be skipped); false (nothing to send, no round) when
    /// an update's key began a newer state already or every target's activity was ended by another job. For tests:
    /// the job processor needs `beginRound(_:key:targets:)`'s skipped targets.
    func beginRound(_ job: PushJob, key: String) -> Bool {
        if case .begun = beginRound(job, key: key, targets: Array(job.targets.indices)) { return true }
        return false
    }

    /// Begins a send round of `job` to `targets` (indices into `job.targets`). An end remembers the round's tokens as
    /// ended; an update's targets whose token another job began to end are skipped, and an end's whose token another
    /// end ended (accepted).
    func beginRound(_ job: PushJob, key: String, targets: [Int]) -> Round {
        guard Self.isOrdered(job) else { return .begun(skipping: []) }
        return state.withLock { state in
            let now = ContinuousClock.now
            // Taken out while changed, so that its `ended` is not copied.
            var entry = state.keys.removeValue(forKey: key) ?? KeyState(touched: now)
            entry.touched = now
            defer {
                state.keys[key] = entry
                if now - state.lastSweep > .seconds(60) { Self.sweep(&state, now: now, idle: idle, endedMemory: endedMemory) }
            }
            if job.kind == .liveActivityUpdate && entry.newestStarted > job.stateSeq { return .superseded }
            let jobHash = FNV1a.hash64(job.jobId)
            let isEnd = job.kind == .liveActivityEnd
            let skipping = entry.ended.isEmpty ? [] : targets.filter { index in
                guard let ended = entry.ended[FNV1a.hash64(job.targets[index].token)], ended.job != jobHash else { return false }
                return !isEnd || ended.accepted
            }
            if skipping.count == targets.count, !targets.isEmpty { return .allEnded }
            if isEnd { Self.remember(job, targets: targets, jobHash: jobHash, in: &entry, at: now) }
            entry.newestStarted = max(entry.newestStarted, job.stateSeq)
            entry.inRound[job.stateSeq, default: 0] += 1
            if job.kind == .liveActivityUpdate { entry.updatesInRound += 1 }
            return .begun(skipping: skipping)
        }
    }

    /// Update tokens of `targets` ended by `job` from `now` (a token another end already ended keeps that end, unless
    /// that end was not accepted).
    private static func remember(_ job: PushJob, targets: [Int], jobHash: UInt64, in entry: inout KeyState, at now: ContinuousClock.Instant) {
        for index in targets {
            let token = FNV1a.hash64(job.targets[index].token)
            if let ended = entry.ended[token], ended.job != jobHash, ended.accepted { continue }
            entry.ended[token] = Ended(job: jobHash, at: now, accepted: entry.ended[token]?.accepted ?? false)
        }
        if entry.oldestEnded == nil { entry.oldestEnded = now }
    }

    /// An end job gave up on `tokens` (dead, expired): they are released, so that the activity still gets updates and a
    /// later end.
    func releaseEnded(_ job: PushJob, key: String, tokens: [String]) {
        guard Self.isOrdered(job), job.kind == .liveActivityEnd, !tokens.isEmpty else { return }
        let jobHash = FNV1a.hash64(job.jobId)
        state.withLock { state in
            guard var entry = state.keys.removeValue(forKey: key) else { return }
            for token in tokens.map(FNV1a.hash64) where entry.ended[token].map({ $0.job == jobHash && !$0.accepted }) ?? false {
                entry.ended[token] = nil
            }
            state.keys[key] = entry
        }
    }

    /// An earlier sending of `job` (before a crash, known from its progress marks) reached its devices: a plain
    /// update of an older state of its key is superseded from now on, as if this job had begun a round here.
    func noteSent(_ job: PushJob, key: String) {
        guard Self.isOrdered(job) else { return }
        noteSent(stateSeq: job.stateSeq, key: key)
    }

    /// State `stateSeq` of `key` reached devices (from progress marks read after an assignment).
    func noteSent(stateSeq: Int64, key: String) {
        state.withLock { state in
            let now = ContinuousClock.now
            var entry = state.keys[key] ?? KeyState(touched: now)
            entry.touched = now
            entry.newestStarted = max(entry.newestStarted, stateSeq)
            state.keys[key] = entry
        }
    }

    /// Ends the round `beginRound` began. `accepted`: an end's targets (indices into `job.targets`) APNs accepted in
    /// it — another end is skipped for them from now on.
    func endRound(_ job: PushJob, key: String, accepted: [Int] = []) {
        guard Self.isOrdered(job) else { return }
        state.withLock { state in
            guard var entry = state.keys.removeValue(forKey: key) else { return }
            defer { state.keys[key] = entry }
            if job.kind == .liveActivityEnd, !accepted.isEmpty {
                let jobHash = FNV1a.hash64(job.jobId)
                for index in accepted {
                    let token = FNV1a.hash64(job.targets[index].token)
                    if entry.ended[token]?.job == jobHash { entry.ended[token]?.accepted = true }
                }
            }
            guard let count = entry.inRound[job.stateSeq] else { return }
            entry.inRound[job.stateSeq] = count > 1 ? count - 1 : nil
            if job.kind == .liveActivityUpdate { entry.updatesInRound = max(0, entry.updatesInRound - 1) }
        }
        roundEnded()
    }

    /// Keys remembered (for tests and the gauge).
    var keyCount: Int { state.withLock { $0.keys.count } }

    /// Update tokens remembered as ended (for tests).
    var endedCount: Int { state.withLock { $0.keys.values.reduce(0) { $0 + $1.ended.count } } }

    /// Forgets ended tokens older than `endedMemory` (only in keys whose oldest is), then keys with nothing in a round,
    /// nothing ended and no job for `idle`.
    private static func sweep(_ state: inout State, now: ContinuousClock.Instant, idle: Duration, endedMemory: Duration) {
        state.lastSweep = now
        for key in Array(state.keys.keys) {
            guard var entry = state.keys.removeValue(forKey: key) else { continue }
            if let oldest = entry.oldestEnded, now - oldest >= endedMemory {
                entry.ended = entry.ended.filter { now - $0.value.at < endedMemory }
                entry.oldestEnded = entry.ended.values.map(\.at).min()
            }
            if !entry.inRound.isEmpty || !entry.ended.isEmpty || now - entry.touched < idle { state.keys[key] = entry }
        }
    }
}
