import Contracts
import Kafka

/// Where fixture snapshots go (Kafka in the service; a recorder in unit tests).
protocol SnapshotPublisher: Sendable {
    /// Publishes and waits for the broker's acknowledgement.
    func publish(_ snapshot: FixtureSnapshot) async throws
}

/// Produces to `sportmonks.fixtures` (or `topic`), key matchId.
struct KafkaSnapshotPublisher: SnapshotPublisher {
    let producer: KafkaProducer
    var topic = FixtureSnapshot.topic.name

    func publish(_ snapshot: FixtureSnapshot) async throws {
        _ = try await producer.send(topic: topic, key: snapshot.matchId, value: try MessageCodec.encode(snapshot))
    }
}
