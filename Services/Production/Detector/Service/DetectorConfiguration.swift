import Runtime
import ServiceKit

/// Everything the detector reads from the environment, read once at start.
public struct DetectorConfiguration: Sendable {
    /// KAFKA_BROKERS, DATABASE_URL and the Kafka session settings.
    public var infrastructure = InfrastructureOptions()
    /// `DETECTOR_GROUP_ID` (default "detector").
    public var groupId = "detector"
    /// `DETECTOR_DECODE_CACHE_MATCHES`: matches whose last decoded rows are kept for reuse (≈ 0.3 MB per T20
    /// match, a few MB for a Test).
    public var decodeCacheMatches = 32
    /// `DETECTOR_CHAIN_MATCHES`: matches whose deliveries are kept in memory (a match beyond it reads them from
    /// feed_balls at each snapshot): more than this detector's live matches.
    public var chainMatches = 256

    public init() {}

    /// Reads the variables above.
    /// - Throws: `ConfigurationError` naming the variable and the value it refused.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        infrastructure = try InfrastructureOptions(environment)
        groupId = environment.string("DETECTOR_GROUP_ID", default: groupId)
        decodeCacheMatches = try environment.int("DETECTOR_DECODE_CACHE_MATCHES", default: decodeCacheMatches, in: 1...10_000)
        chainMatches = try environment.int("DETECTOR_CHAIN_MATCHES", default: chainMatches, in: 1...100_000)
    }
}
