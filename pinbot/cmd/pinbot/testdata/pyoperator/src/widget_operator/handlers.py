import kopf


@kopf.on.create("example.com", "v1", "widgets")
def create_fn(spec, **_):
    return {"size": spec.get("size", 1)}
