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
///
/// Memory of this process only, a few numbers per key (forgotten after `idle` without a job). After a restart
/// or a rebalance of the jobs topic, the new owner starts from the committed offset, which never passes a job
/// still unfinished, so it re-reads at most the jobs after the oldest unfinished one.
final class SendOrder: Sendable {
    private struct KeyState {
        var newestStarted: Int64 = .min
        /// Jobs in a round by their `stateSeq`.
        var inRound: [Int64: Int] = [:]
        var touched: ContinuousClock.Instant
    }

    private struct State {
        var keys: [String: KeyState] = [:]
        var lastSweep = ContinuousClock.now
    }

    private let state = LockedValue(State())
    private let idle: Duration
    /// Told when a round ends (a job waiting on it may start).
    private let roundEnded: @Sendable () -> Void

    init(idle: Duration = .seconds(3600), roundEnded: @escaping @Sendable () -> Void = {}) {
        self.idle = idle
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

    /// Begins a send round of `job`; false (nothing to send) when an update's key began a newer state already.
    func beginRound(_ job: PushJob, key: String) -> Bool {
        guard Self.isOrdered(job) else { return true }
        return state.withLock { state in
            let now = ContinuousClock.now
            var entry = state.keys[key] ?? KeyState(touched: now)
            entry.touched = now
            if job.kind == .liveActivityUpdate && entry.newestStarted > job.stateSeq {
                state.keys[key] = entry
                return false
            }
            entry.newestStarted = max(entry.newestStarted, job.stateSeq)
            entry.inRound[job.stateSeq, default: 0] += 1
            state.keys[key] = entry
            if now - state.lastSweep > .seconds(60) { Self.sweep(&state, now: now, idle: idle) }
            return true
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

    private static func sweep(_ state: inout State, now: ContinuousClock.Instant, idle: Duration) {
        state.lastSweep = now
        state.keys = state.keys.filter { !$0.value.inRound.isEmpty || now - $0.value.touched < idle }
    }
}
