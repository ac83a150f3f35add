import Contracts
import Kafka

/// Where fixture snapshots go (Kafka in the service; a recorder in unit tests).
protocol SnapshotPublisher: Sendable {
    /// Publishes one poll's encoded pages in order and waits for the broker's acknowledgement of each.
    func publish(matchId: String, pages: [[UInt8]]) async throws
}

/// Produces to `sportmonks.fixtures` (or `topic`), key matchId.
struct KafkaSnapshotPublisher: SnapshotPublisher {
    let producer: KafkaProducer
    var topic = FixtureSnapshot.topic.name

    func publish(matchId: String, pages: [[UInt8]]) async throws {
        for page in pages {
            _ = try await producer.send(topic: topic, key: matchId, value: page)
        }
    }
}
