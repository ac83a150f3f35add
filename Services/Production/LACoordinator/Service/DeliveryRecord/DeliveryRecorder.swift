import Contracts
import DeadLetter
import DeliveryRecord
import Foundation
import Kafka
import Runtime
import ServiceKit

/// Folds `push.outcomes` into the delivery record (`push_deliveries`), a batch at a time: every outcome already
/// fetched (up to `LA_RECORD_MAX_OUTCOMES`) is folded per activity — an activity's several pushes in a batch make one row
/// write — and written in one transaction with each outcome's identity (`DeliveryRecordStore.record`), so an outcome is
/// folded exactly once however often the group replays it. While apns-sender still sends this replica's fan-outs,
/// a batch waits (`RecordDeferral`, at most `LA_RECORD_MAX_DELAY_MS` after its oldest outcome): pushes first. A write that fails (PostgreSQL down) is retried
/// with back-off while the member owns its partitions: the record falls behind and catches up; pushes are never
/// waited for (apns-sender does not read the record). Offsets the topic no longer holds when the recorder gets to them,
/// and unreadable outcomes (parked on the dead-letter topic), are written as gaps, which support's view shows.
struct DeliveryRecorder: KafkaBatchHandler {
    let store: DeliveryRecordStore
    let topic: String
    let deadLetters: DeadLetterPublisher
    let metrics: DeliveryRecorderMetrics
    let logger: Logger
    /// Holds a batch back while apns-sender sends this replica's fan-outs (nil: never).
    var deferral: RecordDeferral? = nil
    var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(10))

    var pollTimeout: Duration { .milliseconds(500) }
    var commitFloor: [KafkaTopicPartition: Int64] { [:] }
    mutating func idle(stillOwned: () throws -> Void) async throws {}
    mutating func keepOnly(_ owned: Set<KafkaTopicPartition>) {}
    mutating func finish() async {}

    mutating func process(_ batch: [KafkaMessage], stillOwned: () throws -> Void) async throws -> [KafkaTopicPartition: Int64] {
        var outcomes: [DeliveryRecordStore.Recorded] = []
        outcomes.reserveCapacity(batch.count)
        var unreadable: [DeliveryRecordStore.Gap] = []
        var next: [Int32: Int64] = [:]
        for message in batch {
            next[message.partition] = max(next[message.partition] ?? 0, message.offset + 1)
            do {
                outcomes.append(.init(partition: message.partition, offset: message.offset,
                                      outcome: try MessageCodec.decode(PushOutcome.self, from: message.value)))
            } catch {
                metrics.failed("decode")
                logger.warning("unreadable push outcome; parked, and recorded as a gap", [
                    "partition": String(message.partition), "offset": String(message.offset), "error": "\(error)",
                ])
                try await parkUntilDone(message, error: error, stillOwned: stillOwned)
                unreadable.append(.init(partition: message.partition, from: message.offset, to: message.offset, reason: "unreadable: \(error)"))
            }
        }
        // Pushes first: while apns-sender is still sending, the record waits (bounded; never past shutdown).
        if let deferral, let oldest = outcomes.map(\.outcome.finishedAt).min() {
            var held = false
            while !GracefulShutdown.isRequested, await deferral.shouldWait(oldestFinishedAt: oldest) {
                if !held { metrics.deferred() }
                held = true
                try stillOwned()
                try await Task.sleep(for: deferral.interval)
            }
        }
        while true {
            let started = ContinuousClock.now
            do {
                let written = try await store.record(topic: topic, batch: outcomes, unreadable: unreadable)
                metrics.written(rows: written.rows, pushes: written.pushes, seconds: (ContinuousClock.now - started).seconds)
                backoff.reset()
                break
            } catch let error as KafkaError where error.meansAssignmentLost {
                throw error
            } catch {
                metrics.failed("write")
                let delay = backoff.next()
                logger.warning("writing the delivery record failed; retrying (the record falls behind, pushes are not held)", [
                    "error": "\(error)", "outcomes": String(outcomes.count), "retryMs": String(delay.wholeMilliseconds),
                ])
                try stillOwned()
                try await Task.sleep(for: delay)
                try stillOwned()
            }
        }
        var offsets: [KafkaTopicPartition: Int64] = [:]
        for (partition, offset) in next { offsets[KafkaTopicPartition(topic: topic, partition: partition)] = offset }
        return offsets
    }

    /// Parks an unreadable outcome on the dead-letter topic, retrying a failed produce while the member owns its partitions.
    private func parkUntilDone(_ message: KafkaMessage, error: any Error, stillOwned: () throws -> Void) async throws {
        while true {
            do {
                try await deadLetters.publish(message, kind: "delivery_record", error: "\(error)")
                return
            } catch {
                try stillOwned()
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}

/// The delivery recorder's metrics, every series exported from the start.
struct DeliveryRecorderMetrics: Sendable {
    let registry: MetricsRegistry

    init(registry: MetricsRegistry) {
        self.registry = registry
        for kind in ["decode", "write"] { failures(kind).increment(by: 0) }
        registry.counter("delivery_record_pushes_total", help: "Pushes folded into the delivery record").increment(by: 0)
        registry.counter("delivery_record_rows_written_total", help: "push_deliveries rows written (one per activity per batch)").increment(by: 0)
        registry.counter("delivery_record_batches_deferred_total", help: "Batches held back while apns-sender was sending a fan-out").increment(by: 0)
        _ = writeSeconds
    }

    private func failures(_ kind: String) -> Counter {
        registry.counter("delivery_record_failures_total", help: "Delivery record failures: decode (outcome parked), write (retried)",
                         labels: ["kind": kind])
    }

    private var writeSeconds: Histogram {
        registry.histogram("delivery_record_write_seconds", help: "Time to write one batch of the delivery record",
                           buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])
    }

    func failed(_ kind: String) { failures(kind).increment() }

    func deferred() {
        registry.counter("delivery_record_batches_deferred_total", help: "Batches held back while apns-sender was sending a fan-out").increment()
    }

    func written(rows: Int, pushes: Int, seconds: Double) {
        registry.counter("delivery_record_pushes_total", help: "Pushes folded into the delivery record").increment(by: pushes)
        registry.counter("delivery_record_rows_written_total", help: "push_deliveries rows written (one per activity per batch)").increment(by: rows)
        writeSeconds.observe(seconds)
    }
}
