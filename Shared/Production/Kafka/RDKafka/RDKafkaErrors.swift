import CRdKafka

extension KafkaError {
    /// An error from a bare `rd_kafka_resp_err_t`; librdkafka supplies name and default message.
    init(_ code: rd_kafka_resp_err_t, operation: String, message: String? = nil) {
        self.init(
            code: code.rawValue,
            name: String(cString: rd_kafka_err2name(code)),
            message: message ?? String(cString: rd_kafka_err2str(code)),
            operation: operation,
            isRetriable: KafkaError.retriableCodes.contains(code.rawValue),
            isFatal: code == RD_KAFKA_RESP_ERR__FATAL
        )
    }

    /// An error read from an `rd_kafka_error_t` that the caller still owns.
    init(borrowing error: OpaquePointer, operation: String) {
        self.init(
            code: rd_kafka_error_code(error).rawValue,
            name: String(cString: rd_kafka_error_name(error)),
            message: String(cString: rd_kafka_error_string(error)),
            operation: operation,
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            isFatal: rd_kafka_error_is_fatal(error) != 0
        )
    }

    /// An error read from an `rd_kafka_error_t` that is destroyed here.
    init(consuming error: OpaquePointer, operation: String) {
        self.init(borrowing: error, operation: operation)
        rd_kafka_error_destroy(error)
    }

    /// A client used after `close()`/`shutdown()`.
    static func closed(_ operation: String) -> KafkaError {
        KafkaError(RD_KAFKA_RESP_ERR__STATE, operation: operation, message: "the client is closed")
    }

    /// This member's assignment is gone (see ``KafkaError/meansAssignmentLost``).
    static func assignmentLost(_ operation: String) -> KafkaError {
        KafkaError(RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST, operation: operation,
                   message: "the consumer's group membership was lost; it rejoins from its poll loop")
    }

    /// Codes that mean the member's group membership or generation changed under it.
    static let assignmentLostCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID, RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST,
    ].reduce(into: Set<Int32>([fencedMemberEpochCode, staleMemberEpochCode])) { $0.insert($1.rawValue) }

    /// KIP-848 consumer-protocol codes (FENCED_MEMBER_EPOCH, STALE_MEMBER_EPOCH), newer than some
    /// librdkafka headers.
    static let fencedMemberEpochCode: Int32 = 110
    static let staleMemberEpochCode: Int32 = 113

    /// Delivery codes after which an idempotent producer instance cannot produce again: its
    /// producer id or epoch was refused (the broker lost or fenced it, or sequence numbers broke).
    static let instanceUnusableCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR_PRODUCER_FENCED, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH, RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID,
        RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING,
    ].reduce(into: Set<Int32>()) { $0.insert($1.rawValue) }

    /// Codes for transient conditions (network, leadership, coordinator moves, local queue full).
    static let retriableCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR__TRANSPORT,
        RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__WAIT_COORD,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
        RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
    ].reduce(into: Set<Int32>()) { $0.insert($1.rawValue) }
}
