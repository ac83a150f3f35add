import Kafka
import Runtime

/// Where a ``KafkaConsumerService`` with the `.outOfOrder` policy puts what it reads: a bounded read-ahead whose
/// work is done elsewhere (another service starts it) and finished out of order in the ``CommitTracker``.
public protocol KafkaIntakeHandler: Sendable {
    /// Whether another message may be taken now.
    var hasRoom: Bool { get }
    /// Suspends until room may have been made, or `timeout` passed.
    func waitForRoom(timeout: Duration) async
    /// Takes `message`, already begun in the tracker: its work must `finish` it there once final.
    func accept(_ message: KafkaMessage)
    /// A poll found nothing more: everything fetched so far was read.
    func caughtUp()
}

/// The `.outOfOrder` loop of ``KafkaConsumerService``: polls into the intake while it has room and, every
/// `commitInterval` (on the same loop, which never waits longer than one poll), commits each partition up to its
/// first message whose work is not final.
struct OutOfOrderCommitLoop: Sendable {
    let consumer: KafkaConsumer
    let logger: Logger
    let tracker: CommitTracker
    let commitInterval: Duration
    /// How long one poll or one wait for room lasts (short, so commits and shutdown are noticed quickly).
    var pollTimeout: Duration = .milliseconds(100)

    /// Runs until graceful shutdown is requested or the task is cancelled, then commits what became final (even
    /// when cancelled, or when polling failed: a commit must not be refused for that).
    func run(_ intake: some KafkaIntakeHandler) async throws {
        let committer = KafkaOffsetCommitter(consumer: consumer, logger: logger)
        var failure: (any Error)?
        do { try await poll(into: intake, committer: committer) } catch { failure = error }
        // In a task of its own, which this task's cancellation does not reach.
        await Task { await commitFinal(committer, now: true) }.value
        if let failure { throw failure }
    }

    private func poll(into intake: some KafkaIntakeHandler, committer: KafkaOffsetCommitter) async throws {
        var lastCommit = ContinuousClock.now
        while !GracefulShutdown.isRequested && !Task.isCancelled {
            if ContinuousClock.now - lastCommit >= commitInterval {
                lastCommit = .now
                await commitFinal(committer)
            }
            guard intake.hasRoom else {
                await intake.waitForRoom(timeout: pollTimeout)
                continue
            }
            guard let message = try await consumer.poll(timeout: pollTimeout) else {
                intake.caughtUp()
                continue
            }
            // Taken after shutdown began: not begun, so it stays uncommitted for the next owner.
            guard !GracefulShutdown.isRequested, !Task.isCancelled else { break }
            tracker.begin(message.topicPartition, offset: message.offset)
            intake.accept(message)
        }
    }

    /// Hands the offsets that became final to the committer and commits them under its rules: a commit refused
    /// because the assignment is gone is dropped (the lost revocation then clears the tracker, late finishes are
    /// ignored, and the next owner redoes that work); other failures stay staged and are retried with back-off.
    private func commitFinal(_ committer: KafkaOffsetCommitter, now: Bool = false) async {
        // Read before taking: offsets of work begun before a rebalance that lands meanwhile are dropped.
        let generation = consumer.assignmentGeneration
        committer.stage(tracker.takeCommittable(), polledIn: generation)
        await committer.commit(now: now)
    }
}
