import Contracts
import Kafka

/// Puts push jobs on the jobs topic and waits for the broker's acknowledgement of every one.
struct PushJobPublisher: Sendable {
    let producer: KafkaProducer
    let topic: String
    let factory: PushJobFactory

    /// Produces `jobs` (keyed "matchId:shard") and returns once all are acknowledged.
    /// - Throws: the first delivery failure; earlier jobs may already be on the topic (consumers are idempotent).
    func publish(_ jobs: [PushJob]) async throws {
        guard !jobs.isEmpty else { return }
        var messages: [KafkaOutgoingMessage] = []
        messages.reserveCapacity(jobs.count)
        for job in jobs {
            messages.append(KafkaOutgoingMessage(topic: topic, key: Array(factory.key(of: job).utf8), value: try MessageCodec.encode(job)))
        }
        for result in await producer.sendAll(messages) {
            if case .failure(let error) = result { throw error }
        }
    }
}
