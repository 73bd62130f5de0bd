"""A small PyTorch training loop: ~1,300 kernel launches of a few dozen kinds."""
import torch

torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(
    torch.nn.Linear(512, 1024), torch.nn.GELU(), torch.nn.LayerNorm(1024),
    torch.nn.Linear(1024, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 10),
).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=False)
x = torch.randn(256, 512, device=dev)
y = torch.randint(0, 10, (256,), device=dev)
for step in range(40):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("loss", float(loss))
