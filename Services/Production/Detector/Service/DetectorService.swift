import Contracts
import DeadLetter
import Detection
import FeedHistory
import Kafka
import Postgres
import Runtime
import ServiceKit

/// The detector's work over its consumer: each `sportmonks.fixtures` snapshot detected against the stored
/// state (`SnapshotHandler`), events produced to `match.events`, the offset committed after (`DetectorLoop`).
public struct DetectorService: Sendable {
    /// The consume loop, for main to list after the resources it uses.
    public let loop: KafkaConsumerService

    /// Wires the handler: state in `database`, events and dead letters through `producer`, snapshots from `consumer`.
    public init(configuration: DetectorConfiguration, database: PostgresClient, producer: KafkaProducer, consumer: KafkaConsumer,
                registry: MetricsRegistry, logger: Logger) {
        let metrics = DetectorMetrics(registry: registry)
        var handler = SnapshotHandler(
            detector: MatchDetector(), store: DetectorStateStore(client: database), history: FeedBallStore(database: database),
            publisher: KafkaMatchEventPublisher(producer: producer), logger: logger, metrics: metrics)
        handler.reuseCaches = SnapshotReuseCaches(capacity: configuration.decodeCacheMatches)
        handler.chains = BallChains(capacity: configuration.chainMatches)
        handler.deadLetters = DeadLetterPublisher(producer: producer, metrics: registry, logger: logger)
        loop = DetectorLoop.service(consumer: consumer, handler: handler, logger: logger, metrics: metrics)
    }
}
