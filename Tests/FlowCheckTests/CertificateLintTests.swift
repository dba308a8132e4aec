import FlowCheck
import FlowDescriptor
import Foundation
import Testing

/// What lint says about certificate steps: a store to keep the identity in, sources that need inputs a run
/// without a terminal lacks (at the field), and a certificate step beside the declared login.
@Suite("Certificate steps in lint")
struct CertificateLintTests {
    /// An OAuth 2.0 onboarding with a certificate step; `certificate` is its `with:` mapping's contents.
    static func flow(_ certificate: String, store: Bool = true) -> String {
        """
        flowrun: 1
        name: certificate-onboarding
        application: {id: com.example.travel, version: "1.0"}
        configuration:
          providers: [managed]
          transform: discovery-service
        authentication: oauth2
        steps:
          welcome:  {uses: welcome}
          session:  {uses: session-configuration}
          auth:     {uses: oauth2-authentication}
          cert:
            uses: certificate-authentication
            with: {\(certificate)}
        \(store ? "  store:    {uses: store-manager}" : "")
        flows:
          onboard: [welcome, session, auth, cert\(store ? ", store" : "")]
          restore: [\(store ? "store, " : "")welcome, session, auth, cert]

        """
    }

    static let complete = #"source: pkcs12, file: user.p12, password: "${env.P12_PASSWORD}""#

    @Test func aCertificateStepBesideAnOAuthLoginWithAStoreIsClean() {
        let findings = lint(Self.flow(Self.complete))
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }

    @Test func aCertificateStepWithoutAStoreIsAnErrorAtTheStep() {
        let findings = lint(Self.flow(Self.complete, store: false)).with(.secretWithoutStore)
        #expect(findings.summary.contains("FR603 13:11"), "\(findings.summary)")
        #expect(findings.contains { $0.message.contains("`cert`") && $0.severity == .error })
    }

    @Test func aPKCS12SourceWithoutAFileIsAWarningAtTheSource() {
        let findings = lint(Self.flow(#"source: pkcs12, password: "${env.P12_PASSWORD}""#))
        #expect(findings.summary == ["FR605 14:20"], "\(findings.map(\.message))")
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.message.contains("certificate-file") == true)
    }

    @Test func aPasswordPromptIsAWarningAtThePassword() {
        let findings = lint(Self.flow("source: pkcs12, file: user.p12, password: prompt"))
        #expect(findings.summary == ["FR605 14:54"], "\(findings.map(\.message))")
    }

    @Test func anSLSSourceWithoutInputsIsAWarning() {
        let findings = lint(Self.flow("source: sls"))
        #expect(findings.summary == ["FR605 14:20"], "\(findings.map(\.message))")
    }

    @Test func anUnknownSourceIsNamedWithTheSourcesThereAre() {
        let findings = lint(Self.flow("source: pkcs11, file: user.p12"))
        #expect(findings.with(.invalidValue).summary == ["FR203 14:20"], "\(findings.summary)")
    }

    @Test func aRenewBeforeThatIsNoDurationIsLocated() {
        let findings = lint(Self.flow(Self.complete + ", renew-before: soon"))
        #expect(findings.with(.invalidParameter).count == 1, "\(findings.map(\.message))")
        #expect(findings.first?.message.contains("renew-before") == true, "\(findings.map(\.message))")
    }

    @Test func declaringCertificateWithoutACertificateStepIsAMismatch() {
        let text = Self.flow(Self.complete).replacingOccurrences(
            of: "authentication: oauth2", with: "authentication: certificate")
        let findings = lint(text).with(.authenticationMismatch)
        // The OAuth step contradicts it, in each flow that runs it; the certificate step covers it.
        #expect(findings.summary == ["FR308 17:31", "FR308 18:38"], "\(findings.map(\.message))")
        #expect(findings.first?.message.contains("`auth`") == true)
    }
}
