import FlowDescriptor
import FlowEngine
import FlowVocabulary
import Foundation
import SwiftASN1
import Testing
import X509

@testable import FlowSteps

/// The certificate service's request endpoint of an application.
private let requestPath = "/mobileservices/application/com.example.travel/certificateservice/v1/request"

/// The first certificate of a PEM chain.
private func leaf(of chain: String) throws -> Certificate {
    try Certificate(pemDocument: try #require(PEMDocument.parseMultiple(pemString: chain).first))
}

@Suite("An identity request: a key made here and a PKCS#10 request for it")
struct IdentityRequestTests {
    @Test(arguments: IdentityKeyAlgorithm.allCases)
    func theRequestNamesTheSubjectAndVerifiesWithItsOwnKey(_ algorithm: IdentityKeyAlgorithm) throws {
        let request = try IdentityRequest(subject: "CN=ada,O=flowrun tests", algorithm: algorithm)
        let csr = try CertificateSigningRequest(pemEncoded: request.csrPEM)
        #expect(csr.publicKey.isValidSignature(csr.signature, for: csr))
        #expect(String(describing: csr.subject) == "CN=ada,O=flowrun tests")
        let expected = try DistinguishedName {
            OrganizationName("flowrun tests")
            CommonName("ada")
        }
        #expect(csr.subject == expected)
    }

    @Test func anEscapedSeparatorStaysInTheValue() throws {
        let request = try IdentityRequest(subject: #"CN=Lovelace\, Ada,O=flowrun"#, algorithm: .p256)
        let csr = try CertificateSigningRequest(pemEncoded: request.csrPEM)
        let expected = try DistinguishedName {
            OrganizationName("flowrun")
            CommonName("Lovelace, Ada")
        }
        #expect(csr.subject == expected)
    }

    @Test(arguments: ["CN=ada,XX=1", "ada", "CN=", ""])
    func aSubjectThatCannotBeReadIsAFailureThatQuotesIt(_ subject: String) {
        #expect {
            _ = try IdentityRequest(subject: subject, algorithm: .p256)
        } throws: { error in
            guard let failure = error as? StepFailure else { return false }
            return failure.code == .identitySourceFailed && failure.message.contains("subject")
        }
    }

    @Test(arguments: IdentityKeyAlgorithm.allCases)
    func anIssuedChainBecomesAnIdentityWithTheKeyMadeHere(_ algorithm: IdentityKeyAlgorithm) throws {
        let request = try IdentityRequest(subject: "CN=ada,O=flowrun tests", algorithm: algorithm)
        let issuer = try IssuerState(settings: IssuerSettings())
        let (status, chain) = try issuer.answer(
            IssuerRequest(method: "POST", path: requestPath, headers: [], body: request.csrPEM))
        #expect(status == 201)
        let identity = try request.identity(issuedChainPEM: chain, issuer: "the test issuer")
        let issued = try leaf(of: identity.certificateChainPEM)
        #expect(identity.subject == "CN=ada,O=flowrun tests")
        #expect(identity.serialNumber == issued.serialNumber.bytes.map { String(format: "%02x", $0) }.joined())
        #expect(identity.notAfter == issued.notValidAfter)
        // PKCS#8, the form the session reads, and the key of the leaf.
        #expect(identity.privateKeyPEM.revealed.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try Certificate.PrivateKey(pemEncoded: identity.privateKeyPEM.revealed)
        #expect(key.publicKey == issued.publicKey)
        // Leaf first, then the CA.
        let certificates = try PEMDocument.parseMultiple(pemString: identity.certificateChainPEM)
        #expect(certificates.count == 2)
        #expect(try Certificate(pemDocument: certificates[1]) == issuer.authority)
    }

    @Test func aChainWhoseLeafCarriesAnotherKeyIsRefused() throws {
        let request = try IdentityRequest(subject: "CN=ada", algorithm: .p256)
        let issuer = try IssuerState(settings: IssuerSettings(certifiesAnotherKey: true))
        let (_, chain) = try issuer.answer(
            IssuerRequest(method: "POST", path: requestPath, headers: [], body: request.csrPEM))
        #expect {
            _ = try request.identity(issuedChainPEM: chain, issuer: "POST https://issuer.example/request")
        } throws: { error in
            guard let failure = error as? StepFailure else { return false }
            return failure.code == .identitySourceFailed && failure.message.contains("does not carry the public key")
                && failure.message.contains("POST https://issuer.example/request")
        }
    }

    @Test func anAnswerWithoutACertificateIsRefused() throws {
        let request = try IdentityRequest(subject: "CN=ada", algorithm: .p256)
        #expect {
            _ = try request.identity(issuedChainPEM: "<html>maintenance</html>", issuer: "the test issuer")
        } throws: { error in
            (error as? StepFailure)?.code == .identitySourceFailed
        }
    }
}
