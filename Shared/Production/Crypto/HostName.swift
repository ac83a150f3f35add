#if canImport(Glibc)
import Glibc
#endif

/// Host names as TLS sees them: an IP literal is matched against the certificate's IP addresses
/// (and gets no SNI), anything else against its DNS names.
public enum HostName {
    /// True for an IPv4 or IPv6 literal ("127.0.0.1", "::1").
    public static func isIPLiteral(_ name: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }
}
