import CRdKafka

/// The librdkafka version that is loaded at run time (not the one the headers came from).
public struct KafkaLibraryVersion: Sendable, Equatable, CustomStringConvertible {
    /// Dotted version, e.g. `2.6.1`.
    public let string: String
    /// librdkafka's hex form `0xMMmmrrxx`, e.g. `0x020601ff`.
    public let number: Int

    public init(string: String, number: Int) {
        self.string = string
        self.number = number
    }

    public var description: String { string }
}

/// Facts about the loaded librdkafka.
public enum KafkaLibrary {
    /// The smallest version that can talk to Tansu (Debian's 2.0.2 cannot parse its ApiVersions answer).
    public static let minimumVersion = 0x0203_0000

    /// The version of the librdkafka that the dynamic linker loaded.
    public static var version: KafkaLibraryVersion {
        KafkaLibraryVersion(string: String(cString: rd_kafka_version_str()), number: Int(rd_kafka_version()))
    }

    /// Throws ``KafkaVersionError`` when the loaded librdkafka is older than 2.3.0.
    ///
    /// Call once at process start, before creating any client.
    public static func requireMinimumVersion() throws(KafkaVersionError) {
        try check(version)
    }

    /// The check behind ``requireMinimumVersion()``, for any version value.
    public static func check(_ version: KafkaLibraryVersion) throws(KafkaVersionError) {
        guard version.number >= minimumVersion else {
            throw KafkaVersionError(loaded: version.string, required: "2.3.0")
        }
    }
}
