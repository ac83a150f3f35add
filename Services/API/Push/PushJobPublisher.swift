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

    /// Produces `jobs` together and waits for all their acknowledgements; one entry per job, in
    /// order: nil when the broker acknowledged it, else why it is not on the topic.
    func publishEach(_ jobs: [PushJob]) async -> [(any Error)?] {
        guard !jobs.isEmpty else { return [] }
        var failures = [(any Error)?](repeating: nil, count: jobs.count)
        var messages: [KafkaOutgoingMessage] = []
        var positions: [Int] = []
        messages.reserveCapacity(jobs.count)
        positions.reserveCapacity(jobs.count)
        for (position, job) in jobs.enumerated() {
            do {
                messages.append(KafkaOutgoingMessage(topic: topic, key: Array(factory.key(of: job).utf8), value: try MessageCodec.encode(job)))
                positions.append(position)
            } catch {
                failures[position] = error
            }
        }
        for (index, result) in (await producer.sendAll(messages)).enumerated() {
            if case .failure(let error) = result { failures[positions[index]] = error }
        }
        return failures
    }
}
