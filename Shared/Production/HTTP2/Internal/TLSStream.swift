import Crypto
import COpenSSL
import COpenSSLShim
import Glibc

/// Owns one `SSL` bound to a non-blocking socket. Used only on its event loop's thread.
package final class TLSStream {
    enum IOResult: Equatable {
        case done(Int)
        case wantRead
        case wantWrite
        case closed
        case failed(String)
    }

    private let ssl: OpaquePointer
    let context: TLSContext

    /// A stream on `fd` with a new `SSL` of `context`; `configure` sets its role (connect or accept state)
    /// before any I/O.
    package init(context: TLSContext, fd: Int32, configure: (OpaquePointer) -> Void) throws(HTTP2Error) {
        guard let ssl = SSL_new(context.context) else { throw .tls(message: OpenSSLErrorQueue.drain()) }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        configure(ssl)
    }

    /// A client stream: sets SNI and host verification for `serverName` (DNS name or IP literal).
    convenience init(client context: TLSContext, fd: Int32, serverName: String) throws(HTTP2Error) {
        try self.init(context: context, fd: fd) { ssl in
            SSL_set_connect_state(ssl)
            let isIP = HostName.isIPLiteral(serverName)
            if !isIP { _ = sightscreen_ssl_set_sni(ssl, serverName) }
            let parameters = SSL_get0_param(ssl)
            if isIP {
                X509_VERIFY_PARAM_set1_ip_asc(parameters, serverName)
            } else {
                X509_VERIFY_PARAM_set1_host(parameters, serverName, 0)
            }
        }
    }

    deinit { SSL_free(ssl) }

    func handshake() -> IOResult {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        return result == 1 ? .done(0) : classify(result)
    }

    /// The ALPN protocol the peer agreed to, if any.
    var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Why certificate verification failed, if it did.
    var verifyFailure: String? {
        let code = SSL_get_verify_result(ssl)
        guard code != X509_V_OK else { return nil }
        return String(cString: X509_verify_cert_error_string(code))
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        return count > 0 ? .done(Int(count)) : classify(count)
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> IOResult {
        ERR_clear_error()
        let count = SSL_write(ssl, buffer.baseAddress, Int32(buffer.count))
        return count > 0 ? .done(Int(count)) : classify(count)
    }

    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    private func classify(_ result: Int32) -> IOResult {
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let err = errno
            let queued = OpenSSLErrorQueue.drain()
            if err == 0 || err == ECONNRESET || err == EPIPE { return .closed }
            return .failed("\(String(cString: strerror(err))) \(queued)")
        default:
            return .failed(OpenSSLErrorQueue.drain())
        }
    }
}
