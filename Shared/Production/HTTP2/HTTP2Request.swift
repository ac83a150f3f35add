/// One HTTP/2 request: method, path, extra headers and a body. `:scheme` and `:authority` come from
/// the client's configuration.
public struct HTTP2Request: Sendable, Equatable {
    public var method: String
    public var path: String
    /// Regular headers (lower-case names); order is kept.
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(method: String = "POST", path: String, headers: [HTTP2Header] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// One header field. `sensitive` fields are never put in the HPACK dynamic table (e.g. a JWT or a
/// device token in `:path`).
public struct HTTP2Header: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String
    public var sensitive: Bool

    public init(_ name: String, _ value: String, sensitive: Bool = false) {
        self.name = name
        self.value = value
        self.sensitive = sensitive
    }
}

/// A complete HTTP/2 response.
public struct HTTP2Response: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTP2Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }
}

/// One request's answer within a batch (`HTTP2Client.send(_:)` of an array).
public struct HTTP2BatchResult: Sendable {
    /// The complete response, or why there is none (check `HTTP2Error.isRetryable`).
    public var result: Result<HTTP2Response, HTTP2Error>
    /// Time from the batch's submission to this request's answer.
    public var elapsed: Duration

    public init(result: Result<HTTP2Response, HTTP2Error>, elapsed: Duration) {
        self.result = result
        self.elapsed = elapsed
    }
}

/// Answers of a batch reported while it runs (`HTTP2Client.send(_:progress:)`): every `every` answers, and the last
/// ones when the batch completes, as (index in the batch, result). `report` runs on the client's event-loop thread,
/// before the batch's caller resumes: it must be quick and must not block.
public struct HTTP2BatchProgress: Sendable {
    public let every: Int
    public let report: @Sendable ([(Int, HTTP2BatchResult)]) -> Void

    public init(every: Int, report: @escaping @Sendable ([(Int, HTTP2BatchResult)]) -> Void) {
        self.every = max(1, every)
        self.report = report
    }
}
