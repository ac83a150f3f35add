import Contracts
import Foundation
import Runtime

/// Never backwards, per device: the order in which apns-sender sends the states of one match to one device.
///
/// Every token job of a match is keyed "matchId:shard" and the shard is the token's hash, so all the states a
/// device gets for a match travel in one partition, in `stateSeq` order, to one apns-sender at a time. This type
/// keeps, per key, the newest `stateSeq` that began sending and the jobs in a send round right now, and decides:
/// - **start** (`mayStart`): a job does not start while a job of its key with an older state is in a round (a
///   request in flight could otherwise reach APNs after the newer one);
/// - **each round** (`beginRound`): an update whose key already began sending a newer state is superseded — its
///   devices get (or got) the newer one — whether it is a plain update taken after a key event that overtook it,
///   a retry round after a newer state went out, or an event re-read after a rebalance of la-coordinator. An end
///   is never superseded.
/// - **after an end** (`beginRound`'s `skipping`): once an end push of a device's activity began, no other job of its
///   key sends to that update token again — neither an update nor another end. The api ends one device (unfollow,
///   dismissal) with the state it knows, while la-coordinator may already have read that row as active for the next
///   event: that update reaches the partition after the end, with a newer `stateSeq`, and would otherwise go to an
///   activity that has ended. An update waiting out a back-off when the end began is not retried to it either.
///   Ended tokens are remembered for `endedMemory` (longer than any update's expiration).
///
/// Memory of this process only, a few numbers per key (forgotten after `idle` without a job). After a restart
/// or a rebalance of the jobs topic, the new owner starts from the committed offset, which never passes a job
/// still unfinished, so it re-reads at most the jobs after the oldest unfinished one.
final class SendOrder: Sendable {
    private struct KeyState {
        var newestStarted: Int64 = .min
        /// Jobs in a round by their `stateSeq`.
        var inRound: [Int64: Int] = [:]
        /// Update tokens whose activity an end job of this key began to end: the job's id and when.
        var ended: [String: Ended] = [:]
        var touched: ContinuousClock.Instant
    }

    private struct Ended {
        var jobId: String
        var at: ContinuousClock.Instant
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
            return !entry.inRound.keys.contains { $0 < job.stateSeq }
        }
    }

    /// Begins a send round of `job` to all its targets (some may be skipped); false (nothing to send, no round) when
    /// an update's key began a newer state already or every target's activity was ended by another job.
    func beginRound(_ job: PushJob, key: String) -> Bool {
        if case .begun = beginRound(job, key: key, targets: Array(job.targets.indices)) { return true }
        return false
    }

    /// Begins a send round of `job` to `targets` (indices into `job.targets`). An end remembers every one of its
    /// tokens as ended; any job's targets whose token another job ended are skipped.
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
            let skipping = entry.ended.isEmpty ? [] : targets.filter { index in
                entry.ended[job.targets[index].token].map { $0.jobId != job.jobId } ?? false
            }
            if skipping.count == targets.count, !targets.isEmpty { return .allEnded }
            if job.kind == .liveActivityEnd { Self.remember(job, in: &entry, at: now) }
            entry.newestStarted = max(entry.newestStarted, job.stateSeq)
            entry.inRound[job.stateSeq, default: 0] += 1
            return .begun(skipping: skipping)
        }
    }

    /// Update tokens ended by `job` (first come: a token another end already ended keeps that end's id).
    private static func remember(_ job: PushJob, in entry: inout KeyState, at now: ContinuousClock.Instant) {
        for target in job.targets where entry.ended[target.token] == nil {
            entry.ended[target.token] = Ended(jobId: job.jobId, at: now)
        }
    }

    /// An earlier sending of `job` (before a crash, known from its progress marks) reached its devices: a plain
    /// update of an older state of its key is superseded from now on, as if this job had begun a round here.
    func noteSent(_ job: PushJob, key: String) {
        guard Self.isOrdered(job) else { return }
        noteSent(stateSeq: job.stateSeq, key: key)
        if job.kind == .liveActivityEnd {
            state.withLock { state in
                guard var entry = state.keys.removeValue(forKey: key) else { return }
                Self.remember(job, in: &entry, at: ContinuousClock.now)
                state.keys[key] = entry
            }
        }
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

    /// Ends the round `beginRound` began.
    func endRound(_ job: PushJob, key: String) {
        guard Self.isOrdered(job) else { return }
        state.withLock { state in
            guard var entry = state.keys[key], let count = entry.inRound[job.stateSeq] else { return }
            entry.inRound[job.stateSeq] = count > 1 ? count - 1 : nil
            state.keys[key] = entry
        }
        roundEnded()
    }

    /// Keys remembered (for tests and the gauge).
    var keyCount: Int { state.withLock { $0.keys.count } }

    /// Update tokens remembered as ended (for tests and the gauge).
    var endedCount: Int { state.withLock { $0.keys.values.reduce(0) { $0 + $1.ended.count } } }

    /// Forgets ended tokens older than `endedMemory`, then keys with nothing in a round, nothing ended and no job
    /// for `idle`.
    private static func sweep(_ state: inout State, now: ContinuousClock.Instant, idle: Duration, endedMemory: Duration) {
        state.lastSweep = now
        state.keys = state.keys.compactMapValues { entry in
            var entry = entry
            if !entry.ended.isEmpty { entry.ended = entry.ended.filter { now - $0.value.at < endedMemory } }
            return !entry.inRound.isEmpty || !entry.ended.isEmpty || now - entry.touched < idle ? entry : nil
        }
    }
}
