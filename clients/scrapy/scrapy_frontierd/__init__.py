"""scrapy_frontierd: a Scrapy scheduler on a frontierd URL frontier.

    SCHEDULER = "scrapy_frontierd.Scheduler"
    FRONTIERD_URL = "redis://127.0.0.1:7379"

See docs/scrapy.md.
"""
from .scheduler import Scheduler
from .serialize import dumps_request, loads_request

__all__ = ["Scheduler", "dumps_request", "loads_request"]
