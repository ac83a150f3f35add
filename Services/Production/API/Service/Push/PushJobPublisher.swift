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
        for result in await producer.sendAll(messages(jobs)) {
            if case .failure(let error) = result { throw error }
        }
    }

    /// Produces `jobs` together and waits for all their acknowledgements; one entry per job, in
    /// order: nil when the broker acknowledged it, else why it is not on the topic.
    func publishEach(_ jobs: [PushJob]) async -> [(any Error)?] {
        guard !jobs.isEmpty else { return [] }
        return await producer.sendAll(messages(jobs)).map { result in
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    /// One message per job, keyed "matchId:shard", encoded by `PushJobEncoder` (MessageCodec's bytes).
    private func messages(_ jobs: [PushJob]) -> [KafkaOutgoingMessage] {
        jobs.map { KafkaOutgoingMessage(topic: topic, key: Array(factory.key(of: $0).utf8), value: PushJobEncoder.encode($0)) }
    }
}
