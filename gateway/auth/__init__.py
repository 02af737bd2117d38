"""Request authentication: AWS Signature V4 against access keys kept in the control plane.

`authenticate(request, body)` is called by an endpoint before it reads or changes any
data; it returns the verified `Principal` (whose account scopes every name the request
uses) or raises an `AuthError` the endpoint renders in its own error format.
"""
