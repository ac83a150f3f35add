import CMicroHTTPD

/// Helpers over one `MHD_Connection` pointer, valid only inside a libmicrohttpd callback.
enum MHDConnection {
    /// The value of request header `name`, or nil.
    static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name) else { return nil }
        return String(cString: value)
    }

    /// Every request header; repeated names are joined with `", "` under the lower-cased name.
    static func headers(_ connection: OpaquePointer) -> [String: String] {
        let collector = HeaderCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collector = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key).lowercased()
            let text = value.map { String(cString: $0) } ?? ""
            collector.headers[name] = collector.headers[name].map { "\($0), \(text)" } ?? text
            return .YES
        }, context)
        return withExtendedLifetime(collector) { collector.headers }
    }

    /// Queues `response` (copied into libmicrohttpd) and destroys the `MHD_Response` handle.
    /// - Parameter close: adds `Connection: close` so the connection ends after this answer.
    static func queue(_ connection: OpaquePointer, _ response: HTTPResponse, close: Bool) -> MHD_Result {
        let handle: OpaquePointer? = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let handle else { return .NO }
        defer { MHD_destroy_response(handle) }
        for header in response.headers where !skipped.contains(header.name.lowercased()) {
            _ = MHD_add_response_header(handle, header.name, header.value)
        }
        if close { _ = MHD_add_response_header(handle, "Connection", "close") }
        return MHD_queue_response(connection, UInt32(clamping: response.status), handle)
    }

    /// Headers libmicrohttpd computes itself.
    private static let skipped: Set<String> = ["content-length", "transfer-encoding", "connection", "date"]
}

/// Scratch space for `MHD_get_connection_values`; used on one thread within one call.
private final class HeaderCollector {
    var headers: [String: String] = [:]
}
