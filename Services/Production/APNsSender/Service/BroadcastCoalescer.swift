import Contracts
import Runtime

/// Latest-wins per broadcast channel: a plain priority-5 update not yet accepted is dropped once a job with a
/// newer `stateSeq` of the same channel has been taken (it carries the whole state, so the older one would only
/// show an old score, or be discarded by iOS for its older `timestamp`). Key events (priority 10) and ends are
/// never dropped: their alert or their end must arrive. And a job APNs already accepted (a fan-out retried after a
/// failure produces the same job id again) is not sent twice to the whole audience. Memory of this process only
/// (the last `remembered` job ids per channel): after a restart a replay may be sent once more.
final class BroadcastCoalescer: Sendable {
    static let remembered = 64
    private let latest = LockedValue<[String: Int64]>([:])
    private let accepted = LockedValue<[String: [String]]>([:])

    /// Records that `job` (a broadcast job) was taken off the topic.
    func taken(_ job: PushJob, channel: PushChannel) {
        taken(stateSeq: job.stateSeq, channelId: channel.channelId)
    }

    /// Records that a job of state `stateSeq` of the channel was taken (here, or before a restart: its progress marks).
    func taken(stateSeq: Int64, channelId: String) {
        latest.withLock { seen in seen[channelId] = max(seen[channelId] ?? stateSeq, stateSeq) }
    }

    /// Records that APNs accepted `job`'s broadcast.
    func accepted(_ job: PushJob, channel: PushChannel) {
        accepted.withLock { done in
            var ids = done[channel.channelId] ?? []
            ids.append(job.jobId)
            if ids.count > Self.remembered { ids.removeFirst(ids.count - Self.remembered) }
            done[channel.channelId] = ids
        }
    }

    /// True when `job` need not be sent any more: APNs accepted this very job already, or it is a plain update of a
    /// channel that has a newer job.
    func isSuperseded(_ job: PushJob, channel: PushChannel) -> Bool {
        if accepted.withLock({ $0[channel.channelId]?.contains(job.jobId) ?? false }) { return true }
        guard job.kind == .liveActivityUpdate, job.priority < 10 else { return false }
        return latest.withLock { $0[channel.channelId] ?? job.stateSeq } > job.stateSeq
    }
}
