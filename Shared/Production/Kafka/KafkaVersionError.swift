/// The librdkafka loaded at run time is older than this module needs.
public struct KafkaVersionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The loaded version, e.g. `2.0.2`.
    public let loaded: String
    /// The minimum version, e.g. `2.3.0`.
    public let required: String

    public var description: String {
        "librdkafka \(loaded) is too old (need >= 2.3; Debian's 2.0.2 cannot talk to Tansu): "
            + "run scripts/setup, then source scripts/env (it puts .local/lib first on LD_LIBRARY_PATH)"
    }
}
