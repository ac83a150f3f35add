import Crypto
import DevCredentials
import Foundation
import HTTP2
import HTTP2Server

/// A throwaway certificate directory and helpers shared by the HTTP/2 tests.
enum TestTLS {
    static let certificate: SelfSignedCertificate = {
        let directory = NSTemporaryDirectory() + "h2tests-\(getpid())"
        return try! SelfSignedCertificate.loadOrGenerate(in: directory)
    }()

    static func server(
        maxConcurrentStreams: Int = 100, goAwayAfterStreams: Int? = nil, handler: @escaping HTTP2RequestHandler
    ) throws -> HTTP2Server {
        try HTTP2Server(
            configuration: HTTP2ServerConfiguration(
                certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile,
                maxConcurrentStreams: maxConcurrentStreams, goAwayAfterStreams: goAwayAfterStreams),
            handler: handler)
    }

    static func client(port: Int, connections: Int = 2, serverName: String = "127.0.0.1", caFile: String? = certificate.certificateFile,
                       requestTimeout: Duration = .seconds(10)) throws -> HTTP2Client {
        try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "127.0.0.1", port: port, serverName: serverName, caFile: caFile, connections: connections,
            requestTimeout: requestTimeout, connectTimeout: .seconds(5)))
    }

    /// Echoes method, path and body; adds the stream's connection id as a header.
    static let echo: HTTP2RequestHandler = { request in
        HTTP2ServerResponse(
            status: 200,
            headers: [HTTP2Header("x-path", request.path), HTTP2Header("x-connection", String(request.connectionID)),
                      HTTP2Header("x-method", request.method), HTTP2Header("x-test", request.header("x-test") ?? "")],
            body: request.body)
    }
}
