import Contracts
import Runtime

/// Latest-wins per broadcast channel: a plain priority-5 update not yet accepted is dropped once a job with a
/// newer `stateSeq` of the same channel has been taken (it carries the whole state, so the older one would only
/// show an old score, or be discarded by iOS for its older `timestamp`). Key events (priority 10) and ends are
/// never dropped: their alert or their end must arrive.
final class BroadcastCoalescer: Sendable {
    private let latest = LockedValue<[String: Int64]>([:])

    /// Records that `job` (a broadcast job) was taken off the topic.
    func taken(_ job: PushJob, channel: PushChannel) {
        latest.withLock { seen in seen[channel.channelId] = max(seen[channel.channelId] ?? job.stateSeq, job.stateSeq) }
    }

    /// True when `job` need not be sent any more: a plain update of a channel that has a newer job.
    func isSuperseded(_ job: PushJob, channel: PushChannel) -> Bool {
        guard job.kind == .liveActivityUpdate, job.priority < 10 else { return false }
        return latest.withLock { $0[channel.channelId] ?? job.stateSeq } > job.stateSeq
    }
}
