import HTTPServer
import Runtime

/// The fake SportMonks API and its admin API on one HTTP port (loopback by default).
///
/// ```swift
/// let feed = FakeFeed(matches: matches, configuration: .init(liveMatchIds: [1144504]))
/// let server = FakeSportMonksServer(feed: feed, port: 0, logger: logger)
/// try server.start()      // GET http://127.0.0.1:\(server.port)/api/v2.0/livescores?api_token=dev-token
/// ```
public final class FakeSportMonksServer: Sendable {
    public let feed: FakeFeed
    private let server: HTTPServer

    /// A stopped server for `feed` on `host:port` (0 picks a free port).
    public init(feed: FakeFeed, host: String = "127.0.0.1", port: UInt16, logger: Logger, metrics: MetricsRegistry? = nil) {
        self.feed = feed
        var router = Router()
        FeedAPIRoutes.install(on: &router, feed: feed)
        FeedAdminRoutes.install(on: &router, feed: feed)
        let configuration = HTTPServerConfiguration(host: host, port: port, threadCount: 2, maxBodyBytes: 64 * 1024,
                                                    shutdownGracePeriod: .seconds(2))
        server = HTTPServer(configuration: configuration, router: router, logger: logger, metrics: metrics)
    }

    /// Binds and starts serving.
    /// - Throws: `HTTPServerError` naming the address.
    public func start() throws(HTTPServerError) { try server.start() }

    /// The bound port.
    public var port: UInt16 { server.port }

    /// The API base URL, e.g. `http://127.0.0.1:8090/api/v2.0`.
    public var baseURL: String { "http://\(server.configuration.host):\(port)\(FeedAPIRoutes.prefix)" }

    /// Stops serving once in-flight requests finished (see `HTTPServer.stop()`).
    public func stop() async { await server.stop() }

    /// Starts `stop()` and returns at once (for `defer`s).
    public func stopInBackground() { server.stopInBackground() }
}
