import FanOut
import Foundation
import Kafka
import Runtime
import ServiceKit

/// What la-coordinator does with the `match.events` batches its `KafkaConsumerService` drains (the
/// `.perBatchLatestWins` policy): keeps the latest event per match, fans each kept event out and holds back a plain
/// update while apns-sender is still sending the match's previous fan-out (`PlainUpdateGate`). The batch's offsets
/// are committed once every kept event's jobs were acknowledged — no further than a held update
/// (``commitFloor``), which is fanned out (or replaced) later, between polls.
struct MatchEventPipeline: KafkaBatchHandler {
    let processor: EventBatchProcessor
    /// apns-sender's committed next offset per partition of the jobs topic (`SenderProgress`); nil: never read
    /// (a held update then waits for its spacing or the hold bound only).
    let senderProgress: SenderProgress?
    /// How often apns-sender's progress is read while a held update waits for it.
    let progressInterval: Duration
    let metrics: CoordinatorMetrics
    private(set) var gate: PlainUpdateGate
    private var lastProgressRead: ContinuousClock.Instant

    init(processor: EventBatchProcessor, gateSettings: PlainUpdateGate.Settings, senderProgress: SenderProgress?,
         progressInterval: Duration, metrics: CoordinatorMetrics) {
        self.processor = processor
        self.senderProgress = senderProgress
        self.progressInterval = progressInterval
        self.metrics = metrics
        gate = PlainUpdateGate(settings: gateSettings)
        lastProgressRead = ContinuousClock.now - progressInterval
    }

    /// Shorter while an update is held, so that it goes soon after its match is clear.
    var pollTimeout: Duration { gate.heldCount > 0 ? min(.milliseconds(250), progressInterval) : .milliseconds(250) }

    var commitFloor: [KafkaTopicPartition: Int64] { gate.holdFloor }

    /// Reads apns-sender's progress (at most every `progressInterval`) while a held update waits for it, and
    /// fans out the held updates whose match is clear.
    mutating func idle(stillOwned: () throws -> Void) async throws {
        guard gate.heldCount > 0 else { return }
        if gate.isWaitingForSender, let senderProgress, ContinuousClock.now - lastProgressRead >= progressInterval {
            lastProgressRead = .now
            if let committed = await senderProgress.committed() {
                gate.senderCommitted(committed, now: processor.nowMilliseconds)
            }
        }
        try await processor.releaseHeld(gate: &gate, stillOwned: stillOwned)
    }

    mutating func process(_ batch: [KafkaMessage], stillOwned: () throws -> Void) async throws -> [KafkaTopicPartition: Int64] {
        try await processor.process(batch, gate: &gate, stillOwned: stillOwned)
    }

    mutating func keepOnly(_ owned: Set<KafkaTopicPartition>) { gate.keepOnly(owned) }

    /// Stopping: the held updates go now rather than to the next owner (which would read every event after them again).
    mutating func finish() async {
        gate.releaseAll()
        try? await processor.releaseHeld(gate: &gate)
    }

    func commitFailed() { metrics.failure("commit") }
}
