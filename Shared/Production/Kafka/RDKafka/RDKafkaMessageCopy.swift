import CRdKafka
import Foundation

extension KafkaMessage {
    /// Copies everything out of a consumed `rd_kafka_message_t` (which the caller then destroys).
    init(copying message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let raw = message.pointee
        let topic = raw.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let key = raw.key.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.key_len)) }
        let value = raw.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.len)) } ?? []
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &timestampType)
        let timestamp = milliseconds >= 0 ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : nil
        self.init(topic: topic, partition: raw.partition, offset: raw.offset, key: key, value: value,
                  headers: Self.copyHeaders(message), timestamp: timestamp)
    }

    private static func copyHeaders(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var list: OpaquePointer?
        guard rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var headers: [KafkaHeader] = []
        var index = 0
        while index < 10_000 {
            var name: UnsafePointer<CChar>?
            var value: UnsafeRawPointer?
            var size = 0
            guard rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR else { break }
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
            headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
            index += 1
        }
        return headers
    }
}
