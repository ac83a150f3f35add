/// An error reported by librdkafka or by a Kafka broker, carrying the raw `rd_kafka_resp_err_t` code.
///
/// `operation` names what was being done and on what input (e.g. `produce to push.jobs`), so a
/// log line says which call failed without the caller adding context.
public struct KafkaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `rd_kafka_resp_err_t` value (negative codes are client-side, positive ones come from the broker).
    public let code: Int32
    /// librdkafka's symbolic name for `code`, e.g. `_TIMED_OUT` or `TOPIC_ALREADY_EXISTS`.
    public let name: String
    /// Human-readable detail from librdkafka or from this module.
    public let message: String
    /// The operation and its input, e.g. `commit push.jobs[3]@42`.
    public let operation: String
    /// True when the same call may succeed if retried.
    public let isRetriable: Bool
    /// True when the client instance is unusable and must be recreated (e.g. idempotent producer fatal error).
    public let isFatal: Bool

    public init(code: Int32, name: String, message: String, operation: String, isRetriable: Bool = false, isFatal: Bool = false) {
        self.code = code
        self.name = name
        self.message = message
        self.operation = operation
        self.isRetriable = isRetriable
        self.isFatal = isFatal
    }

    /// True when the call failed because this member's place in its consumer group is gone: the
    /// broker expired the session (`UNKNOWN_MEMBER_ID`), the group moved to a new generation
    /// (`ILLEGAL_GENERATION`, `REBALANCE_IN_PROGRESS`, member-epoch errors), the instance was fenced,
    /// or librdkafka itself declared the assignment lost. The only right reaction is to drop the work
    /// taken from the old assignment and go back to polling, which rejoins the group and resumes from
    /// the committed offsets; retrying the same call cannot succeed.
    public var meansAssignmentLost: Bool { Self.assignmentLostCodes.contains(code) }

    public var description: String {
        var text = "kafka: \(operation) failed: \(name) (\(code)): \(message)"
        if isFatal { text += " [fatal]" } else if isRetriable { text += " [retriable]" }
        return text
    }

    /// librdkafka's code for a timed-out local operation (`RD_KAFKA_RESP_ERR__TIMED_OUT`).
    public static let timedOutCode: Int32 = -185
    /// librdkafka's code for a full local produce queue (`RD_KAFKA_RESP_ERR__QUEUE_FULL`).
    public static let queueFullCode: Int32 = -184
    /// librdkafka's code for an operation in the wrong client state (`RD_KAFKA_RESP_ERR__STATE`).
    public static let stateCode: Int32 = -172
    /// librdkafka's code for a request the broker does not support (`RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE`).
    public static let unsupportedFeatureCode: Int32 = -165
    /// Broker code: the topic already exists (`RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS`).
    public static let topicAlreadyExistsCode: Int32 = 36
    /// UNKNOWN_TOPIC_OR_PART (3): e.g. deleting a topic that is not there.
    public static let unknownTopicCode: Int32 = 3
}
