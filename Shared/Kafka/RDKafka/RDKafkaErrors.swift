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
