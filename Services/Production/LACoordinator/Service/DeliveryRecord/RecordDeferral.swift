import Foundation
import Runtime

/// Pushes first, bookkeeping after: the delivery recorder holds a batch back while apns-sender is still sending the
/// fan-outs this replica produced (its committed offsets on the jobs topic short of the highest job offsets produced),
/// for at most `maximumDelay` after the batch's oldest outcome finished. On a machine where the recorder, PostgreSQL and
/// the fan-out share cores, a million-follower fan-out is then not slowed by its own record; under sustained load the
/// record simply runs `maximumDelay` behind, at full throughput (a batch older than that is written at once).
final class RecordDeferral: Sendable {
    /// `LA_RECORD_MAX_DELAY_MS` (60,000; 0: never hold back).
    let maximumDelay: Duration
    /// How often apns-sender's progress is read while a batch is held back.
    let interval: Duration
    let progress: SenderProgress
    let clock: any WallClock
    /// The highest offset per jobs-topic partition of the jobs this replica produced.
    private let produced = LockedValue<[Int32: Int64]>([:])

    init(maximumDelay: Duration, interval: Duration = .milliseconds(250), progress: SenderProgress, clock: any WallClock) {
        self.maximumDelay = maximumDelay
        self.interval = interval
        self.progress = progress
        self.clock = clock
    }

    /// A fan-out's jobs were acknowledged up to these offsets (`FanOutResult.highestOffsets`).
    func produced(_ offsets: [Int32: Int64]) {
        produced.withLock { mine in mine.merge(offsets) { max($0, $1) } }
    }

    /// Whether a batch whose oldest outcome finished at `oldestFinishedAt` (Unix ms) may wait: it is younger than the
    /// bound and apns-sender has not committed past every job this replica produced.
    func shouldWait(oldestFinishedAt: Int64) async -> Bool {
        guard maximumDelay > .zero else { return false }
        let age = Int64((clock.now().timeIntervalSince1970 * 1000).rounded(.down)) - oldestFinishedAt
        guard age < maximumDelay.wholeMilliseconds else { return false }
        let mine = produced.withLock { $0 }
        guard !mine.isEmpty, let committed = await progress.committed() else { return false }
        return Self.sending(produced: mine, committed: committed)
    }

    /// True while some partition's committed next offset has not passed the highest job produced on it.
    static func sending(produced: [Int32: Int64], committed: [Int32: Int64]) -> Bool {
        produced.contains { partition, offset in (committed[partition] ?? -1) <= offset }
    }
}
