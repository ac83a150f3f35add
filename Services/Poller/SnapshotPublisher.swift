import Contracts
import Kafka

/// Where fixture snapshots go (Kafka in the service; a recorder in unit tests).
protocol SnapshotPublisher: Sendable {
    /// Publishes and waits for the broker's acknowledgement.
    func publish(_ snapshot: FixtureSnapshot) async throws
}

/// Produces to `sportmonks.fixtures`, key matchId.
struct KafkaSnapshotPublisher: SnapshotPublisher {
    let producer: KafkaProducer

    func publish(_ snapshot: FixtureSnapshot) async throws {
        _ = try await producer.send(topic: FixtureSnapshot.topic.name, key: snapshot.matchId, value: try MessageCodec.encode(snapshot))
    }
}
