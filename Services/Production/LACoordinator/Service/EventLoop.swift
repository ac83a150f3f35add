import FanOut
import Foundation
import Kafka
import Runtime

/// Consumes `match.events`: waits for a message, then drains what is already fetched (up to
/// `maximumEvents`, each extra poll waiting `drainWait`) into one latest-wins batch, processes it,
/// and commits the batch's offsets only after every kept event's jobs were acknowledged — no further than a
/// plain update the `PlainUpdateGate` holds, which is fanned out (or replaced) later.
struct EventLoop: Sendable {
    let consumer: KafkaConsumer
    let processor: EventBatchProcessor
    let maximumEvents: Int
    let drainWait: Duration
    let gateSettings: PlainUpdateGate.Settings
    /// apns-sender's committed next offset per partition of the jobs topic (`SenderProgress`); nil: never read
    /// (a held update then waits for its spacing or the hold bound only).
    let senderProgress: SenderProgress?
    /// How often apns-sender's progress is read while a held update waits for it.
    let progressInterval: Duration
    let logger: Logger
    let metrics: CoordinatorMetrics

    /// Runs until graceful shutdown is requested (after committing the batch in hand), the task is
    /// cancelled, or the consumer is closed. When the member's assignment is lost mid-batch the batch is
    /// dropped and the loop goes back to polling (rejoining the group); the partitions' next owner
    /// re-fans those events out with the same job ids. Commits follow `KafkaOffsetCommitter`.
    func run() async throws {
        let committer = KafkaOffsetCommitter(consumer: consumer, logger: logger)
        var gate = PlainUpdateGate(settings: gateSettings)
        /// The next offset after everything processed, per partition (committed up to the gate's floor).
        var processed: [KafkaTopicPartition: Int64] = [:]
        var lastProgressRead = ContinuousClock.now - progressInterval
        var generation = consumer.assignmentGeneration
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            if case .willRetry = await committer.commit() { metrics.failure("commit") }
            if consumer.assignmentGeneration != generation {
                // Held updates of partitions now elsewhere are their next owner's (read again from the commit).
                generation = consumer.assignmentGeneration
                let owned = Set(consumer.assignment)
                gate.keepOnly(owned)
                processed = processed.filter { owned.contains($0.key) }
            }
            if gate.heldCount > 0 {
                if gate.isWaitingForSender, let senderProgress, ContinuousClock.now - lastProgressRead >= progressInterval {
                    lastProgressRead = .now
                    if let committed = await senderProgress.committed() {
                        gate.senderCommitted(committed, now: processor.nowMilliseconds)
                    }
                }
                let before = gate.heldCount
                do {
                    try await processor.releaseHeld(gate: &gate, stillOwned: { try consumer.requireAssignment() })
                } catch let error as KafkaError where error.meansAssignmentLost {
                    gate.keepOnly([])
                    continue
                }
                if gate.heldCount != before {
                    committer.stage(Self.committable(processed, floor: gate.holdFloor), polledIn: generation)
                }
            }
            let wait: Duration = gate.heldCount > 0 ? min(.milliseconds(250), progressInterval) : .milliseconds(250)
            guard let first = try await consumer.poll(timeout: wait) else { continue }
            let polledIn = consumer.assignmentGeneration
            var batch = [first]
            while batch.count < maximumEvents, let next = try await consumer.poll(timeout: drainWait) {
                batch.append(next)
            }
            // A rebalance while the batch was drained: its first part may come from partitions that
            // are now read again from their committed offsets (eager protocol); drop the batch.
            guard consumer.assignmentGeneration == polledIn else {
                consumer.metrics?.droppedWork(count: batch.count)
                continue
            }
            let offsets: [KafkaTopicPartition: Int64]
            do {
                offsets = try await processor.process(batch, gate: &gate, stillOwned: { try consumer.requireAssignment() })
            } catch let error as KafkaError where error.meansAssignmentLost {
                consumer.metrics?.droppedWork(count: batch.count)
                gate.keepOnly([])
                logger.warning("assignment lost during a batch; dropping it (its next owner fans it out again)", [
                    "event": "assignment_lost", "messages": String(batch.count), "group": consumer.configuration.groupId,
                ])
                continue
            }
            processed.merge(offsets) { max($0, $1) }
            committer.stage(Self.committable(processed, floor: gate.holdFloor), polledIn: polledIn)
            if case .willRetry = await committer.commit(now: true) { metrics.failure("commit") }
        }
        if !Task.isCancelled {
            // Stopping: the held updates go now rather than to the next owner (which would read every event after
            // them again), then everything processed is committed.
            gate.releaseAll()
            try? await processor.releaseHeld(gate: &gate)
            committer.stage(Self.committable(processed, floor: gate.holdFloor), polledIn: generation)
            await committer.commit(now: true)
        }
    }

    /// `processed` with each partition held back to its held update's offset, if any.
    static func committable(_ processed: [KafkaTopicPartition: Int64], floor: [KafkaTopicPartition: Int64]) -> [KafkaTopicPartition: Int64] {
        processed.merging(floor.filter { processed[$0.key] != nil }) { next, held in min(next, held) }
    }
}
